package dev.idemlab.lab.cli;

import dev.idemlab.lab.scenario.EvictionScenario;
import dev.idemlab.lab.scenario.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/** {@code lab scenario eviction}. */
@Command(name = "eviction", mixinStandardHelpOptions = true,
        description = "Memory pressure on the lab's private Redis with a small maxmemory: under allkeys-lru the "
                + "completed record is evicted and the retry charges again (the store warns at start); under "
                + "noeviction the record stays and the retry replays. Never run on a Redis given by URL.")
final class EvictionCommand extends FailureScenarioCommand {

    @Option(names = "--noeviction", paramLabel = "on|off",
            description = "Run the server with maxmemory-policy noeviction (on) or allkeys-lru (off). Default: both, off first.")
    String noEviction;

    @Override
    void checkStore(String store) {
        if (!store.equals("redis")) {
            throw new UsageException("eviction sets maxmemory and maxmemory-policy on the lab's own private single "
                    + "Redis: --store must be redis, got '" + store + "'");
        }
    }

    @Override
    List<Scenario> variants() {
        return Toggle.variants("--noeviction", noEviction).stream().<Scenario>map(EvictionScenario::new).toList();
    }
}
