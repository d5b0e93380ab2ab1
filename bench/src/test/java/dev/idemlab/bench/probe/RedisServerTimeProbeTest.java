package dev.idemlab.bench.probe;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RedisServerTimeProbeTest {

    @Test
    void readsEachCommandsMicrosecondsFromCommandstatsAndLeavesOutTheProbesOwnCommands() {
        String info = "# Commandstats\r\n"
                + "cmdstat_evalsha:calls=10000,usec=99528,usec_per_call=9.95,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_get:calls=10000,usec=8313,usec_per_call=0.83,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_config:calls=1,usec=13,usec_per_call=13.00,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_info:calls=1,usec=41,usec_per_call=41.00,rejected_calls=0,failed_calls=0\r\n";

        Map<String, Long> micros = RedisServerTimeProbe.commandMicros(info);

        assertThat(micros).containsExactly(Map.entry("evalsha", 99_528L), Map.entry("get", 8_313L));
    }

    @Test
    void aServerThatRanNothingYetHasNoCommands() {
        assertThat(RedisServerTimeProbe.commandMicros("# Commandstats\r\n")).isEmpty();
    }
}
