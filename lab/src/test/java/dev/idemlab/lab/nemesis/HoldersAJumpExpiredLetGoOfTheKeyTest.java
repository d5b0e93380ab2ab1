package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.MemoryBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the in-memory store a clock jump stands in for a paused holder: around each jump the run plans a
 * holder whose lease the jump ends and whose action then fails, callers who take the key over, and a
 * caller after the stale holder's release. On the library as it is, that release leaves the taker alone:
 * the taker's charge stands, the late caller waits for it, and the checker flags nothing. (A release that ignores its token, the mutant
 * {@code memory-release-ignores-token}, makes the last caller charge again; scripts/mutants.sh runs it.)
 */
class HoldersAJumpExpiredLetGoOfTheKeyTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @Test
    void eachJumpGetsAHolderThatFailsAfterItTwoTakersAndALateCaller() {
        FaultSchedule schedule = FaultSchedule.draw(3, Duration.ofMinutes(1), List.of(FaultKind.CLOCK_JUMP));
        List<Workload.Request> requests = JumpedHolders.plan(schedule, 1000, LEASE);
        long jumps = schedule.faults().stream().filter(fault -> fault.atMillis() >= LEASE.toMillis() / 2).count();
        assertThat(requests).hasSize((int) jumps).isNotEmpty();
        for (int i = 0; i < requests.size(); i++) {
            Workload.Request request = requests.get(i);
            long jump = request.atMillis() + LEASE.toMillis() / 2;
            List<Workload.Caller> callers = request.callers();
            assertThat(request.key()).isEqualTo(1000 + i);
            // the holder is in flight across the jump and fails after it
            assertThat(callers.get(0).atMillis()).isLessThan(jump);
            assertThat(callers.get(0).atMillis() + callers.get(0).actionMillis()).isGreaterThan(jump);
            assertThat(callers.get(0).actionFails()).isTrue();
            long released = callers.get(0).atMillis() + callers.get(0).actionMillis();
            // the takers come after the jump and still hold the key when the late caller comes after the release
            Workload.Caller late = callers.get(callers.size() - 1);
            assertThat(late.atMillis()).isGreaterThan(released);
            assertThat(callers.subList(1, callers.size() - 1)).hasSize(2).allSatisfy(taker -> {
                assertThat(taker.atMillis()).isGreaterThan(jump).isLessThan(released);
                assertThat(taker.atMillis() + taker.actionMillis()).isGreaterThan(late.atMillis());
                assertThat(taker.actionFails()).isFalse();
            });
        }
    }

    @Test
    void theStaleHoldersReleaseLeavesTheTakerAloneAndTheKeyHasOneCharge() throws Exception {
        long seed = NemesisOnEveryStoreTest.seed();
        Duration duration = Duration.ofSeconds(12);
        NemesisSettings settings = new NemesisSettings(seed, duration, LEASE, false, Sabotage.NONE);
        NemesisResult result;
        try (MemoryBackend backend = new MemoryBackend()) {
            result = NemesisRun.run(backend, settings, line -> { }, kind -> kind == FaultKind.CLOCK_JUMP);
        }
        String report = NemesisReport.text(result);
        assertThat(result.passed()).as(report).isTrue();
        int firstKey = Workload.draw(seed, duration, LEASE).requests().size();
        Map<Integer, List<CallRecord>> jumped = result.history().calls().stream().filter(call -> call.key >= firstKey)
                .collect(Collectors.groupingBy(call -> call.key));
        assertThat(jumped).as(report + "\nno clock jump half a lease into the run: seed " + seed).isNotEmpty();
        jumped.forEach((key, calls) -> {
            CallRecord holder = calls.stream().filter(call -> call.caller == 0).findFirst().orElseThrow();
            assertThat(holder.charged()).as("key %d's holder", key).isNull();
            assertThat(holder.outcome()).as("key %d's holder", key).isNull();
        });
    }
}
