package dev.idemlab.bench.report;

import java.util.List;
import java.util.Objects;

/**
 * Where a set of figures came from, as every published figure must say.
 *
 * @param command the command that produced them
 * @param commit the git commit they were measured at
 * @param cores the processors the JVM saw
 * @param machine operating system and architecture
 * @param servers one line per server the benchmarks used: store, version, origin, address
 * @param date when the page was rendered (UTC, ISO-8601)
 */
public record RunInfo(String command, String commit, int cores, String machine, List<String> servers, String date) {

    public RunInfo {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(machine, "machine");
        servers = List.copyOf(servers);
        Objects.requireNonNull(date, "date");
    }
}
