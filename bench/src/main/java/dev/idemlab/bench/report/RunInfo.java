package dev.idemlab.bench.report;

import java.util.List;

/**
 * What the page needs to know about the run beyond its figures. The command, commit, date, JDK and
 * machine are in the header every results page carries (scripts/lib/page.sh).
 *
 * @param cores the processors the JVM saw: targets are judged at up to this many threads
 * @param servers one line per server the benchmarks used, as each reported itself: store, version,
 *     origin, address, durability settings
 */
public record RunInfo(int cores, List<String> servers) {

    public RunInfo {
        servers = List.copyOf(servers);
    }
}
