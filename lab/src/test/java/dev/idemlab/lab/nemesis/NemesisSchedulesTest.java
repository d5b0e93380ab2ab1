package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The same seed draws the same workload and the same faults; another seed, others. */
class NemesisSchedulesTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final List<FaultKind> KINDS = List.of(FaultKind.PAUSE_ALL, FaultKind.RESET, FaultKind.FREEZE);

    @Test
    void theSameSeedDrawsTheSameSchedules() {
        assertThat(Workload.draw(7, MINUTE, LEASE).requests()).isEqualTo(Workload.draw(7, MINUTE, LEASE).requests());
        assertThat(FaultSchedule.draw(7, MINUTE, KINDS).faults()).isEqualTo(FaultSchedule.draw(7, MINUTE, KINDS).faults());
        assertThat(Workload.draw(8, MINUTE, LEASE).requests()).isNotEqualTo(Workload.draw(7, MINUTE, LEASE).requests());
        assertThat(FaultSchedule.draw(8, MINUTE, KINDS).faults()).isNotEqualTo(FaultSchedule.draw(7, MINUTE, KINDS).faults());
    }

    @Test
    void theWorkloadHasEveryShapeTheNemesisPromises() {
        List<Workload.Caller> callers = Workload.draw(11, MINUTE, LEASE).requests().stream()
                .flatMap(request -> request.callers().stream()).toList();
        assertThat(Workload.draw(11, MINUTE, LEASE).requests())
                .allSatisfy(request -> assertThat(request.callers().size()).isBetween(2, 8));
        assertThat(callers).anyMatch(Workload.Caller::async).anyMatch(caller -> !caller.async())
                .anyMatch(Workload.Caller::cancels).anyMatch(Workload.Caller::actionFails)
                .anyMatch(caller -> caller.actionMillis() > LEASE.toMillis())
                .anyMatch(caller -> caller.policy() == dev.idemlab.idempotency.InFlightPolicy.RAISE)
                .anyMatch(caller -> caller.onStoreFailure() == dev.idemlab.idempotency.StoreFailureMode.FAIL_CLOSED);
        // Bursts: several keys sent at one instant, so that their holders' heartbeats start together.
        List<Workload.Request> requests = Workload.draw(11, MINUTE, LEASE).requests();
        long instants = requests.stream().mapToLong(Workload.Request::atMillis).distinct().count();
        assertThat(instants).isLessThan(requests.size());
        assertThat(requests.stream().collect(java.util.stream.Collectors.groupingBy(Workload.Request::atMillis,
                java.util.stream.Collectors.counting())).values()).anyMatch(together -> together >= 3);
    }

    @Test
    void someFaultsOutlastTheStorePatienceAndMostAreShort() {
        List<FaultSchedule.Planned> faults = FaultSchedule.draw(13, Duration.ofMinutes(5), KINDS).faults();
        assertThat(faults).allSatisfy(fault -> assertThat(fault.lengthMillis()).isBetween(100L, 4000L));
        long pastPatience = faults.stream().filter(fault -> fault.lengthMillis() > 2500).count();
        assertThat(pastPatience).isPositive().isLessThan(faults.size() / 2);
    }

    @Test
    void whereTheStoreCanLoseRepliesNoStretchGoesWithoutALongLossOfThem() {
        List<FaultKind> kinds = List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET,
                FaultKind.KILL_CONNECTIONS, FaultKind.LOCK_TABLE, FaultKind.STOP_BACKENDS, FaultKind.DROP_REQUESTS);
        for (long seed = 1; seed <= 20; seed++) {
            List<FaultSchedule.Planned> faults = FaultSchedule.draw(seed, Duration.ofMinutes(2), kinds).faults();
            List<Long> losses = faults.stream()
                    .filter(fault -> fault.kind() == FaultKind.DROP_REPLIES && fault.lengthMillis() >= FaultSchedule.LONG_OUTAGE.toMillis())
                    .map(FaultSchedule.Planned::atMillis).toList();
            // the first fault at or past the stretch, which comes within a fault and a gap (4 s + 3 s) of it
            long within = FaultSchedule.REPLY_LOSS_EVERY_MILLIS + 7000;
            assertThat(losses).isNotEmpty().first().satisfies(first -> assertThat(first).isLessThan(within));
            for (int i = 1; i < losses.size(); i++) {
                assertThat(losses.get(i) - losses.get(i - 1)).isLessThan(within);
            }
            assertThat(faults).allSatisfy(fault -> assertThat(fault.lengthMillis()).isBetween(100L, 4000L));
            // the fault each stretch adds: short enough for a settle's calm after it, and that calm left free
            long lastLoss = 0;
            for (int i = 0; i < faults.size(); i++) {
                FaultSchedule.Planned fault = faults.get(i);
                if (fault.atMillis() - lastLoss >= FaultSchedule.REPLY_LOSS_EVERY_MILLIS) {
                    assertThat(fault.kind()).isEqualTo(FaultKind.DROP_REPLIES);
                    assertThat(fault.lengthMillis()).isBetween(2200L, 2599L);
                    if (i + 1 < faults.size()) {
                        assertThat(faults.get(i + 1).atMillis()).isGreaterThanOrEqualTo(fault.atMillis()
                                + fault.lengthMillis() + 2500);
                    }
                }
                if (fault.kind() == FaultKind.DROP_REPLIES && fault.lengthMillis() >= 2200) {
                    lastLoss = fault.atMillis();
                }
            }
            // most faults are still drawn from every kind the store has
            assertThat(faults.stream().map(FaultSchedule.Planned::kind).distinct().count()).isGreaterThan(3);
            assertThat(faults.stream().filter(fault -> fault.kind() == FaultKind.DROP_REPLIES).count())
                    .isLessThan(faults.size() / 2);
        }
    }

    @Test
    void whereHoldersCanBePausedEveryStretchHasAPausedHolderThatFailsAsItWakes() {
        List<FaultKind> kinds = List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET,
                FaultKind.KILL_CONNECTIONS, FaultKind.STOP_SERVER, FaultKind.DROP_REQUESTS, FaultKind.PAUSE_ALL,
                FaultKind.PAUSE_WRITE, FaultKind.REJECT_RESUMPTIONS, FaultKind.PAUSE_HOLDER, FaultKind.KILL_HOLDER);
        for (long seed = 1; seed <= 20; seed++) {
            FaultSchedule schedule = FaultSchedule.draw(seed, Duration.ofMinutes(2), kinds);
            List<FaultSchedule.Planned> pauses = schedule.faults().stream()
                    .filter(fault -> fault.kind() == FaultKind.PAUSE_HOLDER && fault.added()).toList();
            // the first fault at or past the mark, within a fault and a gap (4 s + 3 s) of it
            assertThat(pauses).isNotEmpty().first().satisfies(first -> assertThat(first.atMillis())
                    .isBetween(FaultSchedule.FIRST_HOLDER_PAUSE_MILLIS, FaultSchedule.FIRST_HOLDER_PAUSE_MILLIS + 7000));
            // one more fault where the mark fell on a loss of replies the schedule added (2.6 s and its calm)
            long within = FaultSchedule.HOLDER_PAUSE_EVERY_MILLIS + 7000 + 2600 + 3000 + 7000;
            for (int i = 1; i < pauses.size(); i++) {
                assertThat(pauses.get(i).atMillis() - pauses.get(i - 1).atMillis()).isLessThan(within);
            }
            List<HolderPlan> plans = HolderPlan.draw(seed, schedule, 0, LEASE);
            List<FaultSchedule.Planned> holderFaults = schedule.faults().stream()
                    .filter(fault -> fault.kind().onChildHolder()).toList();
            for (int i = 0; i < plans.size(); i++) {
                if (holderFaults.get(i).added()) {
                    assertThat(plans.get(i).failsAfterPause()).as("an added pause fails as it wakes").isTrue();
                }
            }
            // the drop of replies the schedule adds still comes, and most faults are still drawn
            assertThat(schedule.faults()).anyMatch(fault -> fault.kind() == FaultKind.DROP_REPLIES && fault.added());
            assertThat(schedule.faults().stream().filter(FaultSchedule.Planned::added).count())
                    .isLessThan(schedule.faults().size() / 2);
        }
        // the workflows' holders stop at a step boundary: even an added pause never fails instead of charging
        FaultSchedule schedule = FaultSchedule.draw(3, Duration.ofMinutes(2), kinds);
        assertThat(HolderPlan.draw(3, schedule, 0, LEASE, true)).noneMatch(HolderPlan::failsAfterPause);
        // and where no paused holder can fail (a workflow's, the sample's JVM) the schedule adds no pause
        assertThat(FaultSchedule.draw(3, Duration.ofMinutes(2), kinds, FaultSchedule.Holders.AS_DRAWN).faults())
                .noneMatch(fault -> fault.kind() == FaultKind.PAUSE_HOLDER && fault.added());
    }

    @Test
    void everyLongLossOfRepliesDrawnOrAddedIsFollowedByACalm() {
        List<FaultKind> kinds = List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET,
                FaultKind.KILL_CONNECTIONS, FaultKind.LOCK_TABLE, FaultKind.STOP_BACKENDS, FaultKind.DROP_REQUESTS);
        long drawn = 0;
        for (long seed = 1; seed <= 20; seed++) {
            List<FaultSchedule.Planned> faults = FaultSchedule.draw(seed, Duration.ofMinutes(2), kinds).faults();
            for (int i = 0; i + 1 < faults.size(); i++) {
                FaultSchedule.Planned fault = faults.get(i);
                if (fault.kind() == FaultKind.DROP_REPLIES && fault.lengthMillis() >= FaultSchedule.LONG_OUTAGE.toMillis()) {
                    drawn += fault.added() ? 0 : 1;
                    assertThat(faults.get(i + 1).atMillis()).as("the fault after a long loss of replies at %d ms, seed %d",
                                    fault.atMillis(), seed)
                            .isGreaterThanOrEqualTo(fault.atMillis() + fault.lengthMillis()
                                    + FaultSchedule.CALM_AFTER_LONG_LOSS_MILLIS);
                }
            }
        }
        assertThat(drawn).as("long losses the draw made, not the schedule").isPositive();
    }

    @Test
    void throughOneServiceItsKillsAreSpacedOutAndTheOtherFaultsStayAsDrawn() {
        List<FaultKind> kinds = List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET,
                FaultKind.KILL_CONNECTIONS, FaultKind.LOCK_TABLE, FaultKind.STOP_BACKENDS, FaultKind.DROP_REQUESTS,
                FaultKind.RESTART_FROM_SNAPSHOT, FaultKind.PAUSE_HOLDER, FaultKind.KILL_HOLDER);
        long turned = 0;
        // 158548189466367 drew three kills in its first 9 s, and the sample was down for most of a 30 s run
        // 50, 86 and 102 once turned a kill into a long loss of replies, which moved every fault after it
        for (long seed : new long[] {158548189466367L, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50, 86, 102}) {
            List<FaultSchedule.Planned> asDrawn = FaultSchedule.draw(seed, Duration.ofMinutes(2), kinds,
                    FaultSchedule.Holders.AS_DRAWN).faults();
            List<FaultSchedule.Planned> spaced = FaultSchedule.draw(seed, Duration.ofMinutes(2), kinds,
                    FaultSchedule.Holders.ONE_SERVICE).faults();
            List<Long> kills = spaced.stream().filter(fault -> fault.kind() == FaultKind.KILL_HOLDER)
                    .map(FaultSchedule.Planned::atMillis).toList();
            for (int i = 1; i < kills.size(); i++) {
                assertThat(kills.get(i) - kills.get(i - 1)).isGreaterThanOrEqualTo(FaultSchedule.SERVICE_KILL_EVERY_MILLIS);
            }
            assertThat(spaced).hasSameSizeAs(asDrawn);
            for (int i = 0; i < spaced.size(); i++) {
                FaultSchedule.Planned was = asDrawn.get(i);
                FaultSchedule.Planned now = spaced.get(i);
                assertThat(now.atMillis()).isEqualTo(was.atMillis());
                assertThat(now.lengthMillis()).isEqualTo(was.lengthMillis());
                if (now.kind() != was.kind()) {
                    turned++;
                    assertThat(was.kind()).isEqualTo(FaultKind.KILL_HOLDER);
                    assertThat(StoreFaults.onStore(now.kind())).as("a kill too soon becomes a fault of the store").isTrue();
                    assertThat(now.kind()).isNotEqualTo(FaultKind.DROP_REPLIES);
                    assertThat(now.kind().breaksStorePromise()).isFalse();
                    assertThat(now.added()).as("the schedule chose its kind").isTrue();
                }
            }
            if (asDrawn.stream().anyMatch(fault -> fault.kind() == FaultKind.KILL_HOLDER)) {
                assertThat(kills).as("seed %d still kills the service", seed).isNotEmpty();
            }
        }
        assertThat(turned).isPositive();
    }

    @Test
    void whereTheStoreCannotLoseRepliesTheScheduleAddsNothing() {
        List<FaultSchedule.Planned> faults = FaultSchedule.draw(5, Duration.ofMinutes(3), KINDS).faults();
        assertThat(faults).isNotEmpty().allSatisfy(fault -> assertThat(KINDS).contains(fault.kind()));
    }

    @Test
    void faultsComeOneAtATimeWithinTheRunFromTheKindsGiven() {
        List<FaultSchedule.Planned> faults = FaultSchedule.draw(3, MINUTE, KINDS).faults();
        assertThat(faults).isNotEmpty().allSatisfy(fault -> {
            assertThat(KINDS).contains(fault.kind());
            assertThat(fault.atMillis()).isLessThan(MINUTE.toMillis());
        });
        for (int i = 1; i < faults.size(); i++) {
            assertThat(faults.get(i).atMillis()).isGreaterThan(faults.get(i - 1).atMillis() + faults.get(i - 1).lengthMillis());
        }
    }

    @Test
    void holderFaultsHoldFreshKeysLongerThanTheLeaseAndAreThoseOfTheSchedule() {
        List<FaultKind> kinds = List.of(FaultKind.PAUSE_HOLDER, FaultKind.KILL_HOLDER, FaultKind.RESET);
        FaultSchedule schedule = FaultSchedule.draw(5, MINUTE, kinds);
        int firstKey = Workload.draw(5, MINUTE, LEASE).requests().size();
        List<HolderPlan> plans = HolderPlan.draw(5, schedule, firstKey, LEASE);
        assertThat(plans).isEqualTo(HolderPlan.draw(5, schedule, firstKey, LEASE));
        assertThat(plans).extracting(HolderPlan::kind).containsExactlyElementsOf(schedule.faults().stream()
                .map(FaultSchedule.Planned::kind).filter(FaultKind::onChildHolder).toList());
        assertThat(plans).extracting(HolderPlan::key).doesNotHaveDuplicates()
                .allSatisfy(key -> assertThat(key).isGreaterThanOrEqualTo(firstKey));
        assertThat(plans).isNotEmpty().allSatisfy(plan -> {
            assertThat(plan.beforeChargeMillis() + plan.afterChargeMillis()).isGreaterThan(LEASE.toMillis());
            assertThat(plan.pauseMillis()).isGreaterThan(LEASE.toMillis());
            assertThat(plan.retries().size()).isBetween(2, 5);
        });
        assertThat(plans).anyMatch(plan -> plan.kind() == FaultKind.KILL_HOLDER && plan.killAfterCharge())
                .anyMatch(plan -> plan.kind() == FaultKind.KILL_HOLDER && !plan.killAfterCharge());
    }

    @Test
    void someOfThePausedHoldersFailAfterThePauseAndTheirRetriesOutlastTheRelease() {
        FaultSchedule schedule = FaultSchedule.draw(5, Duration.ofMinutes(10), List.of(FaultKind.PAUSE_HOLDER,
                FaultKind.KILL_HOLDER));
        List<HolderPlan> plans = HolderPlan.draw(5, schedule, 0, LEASE);
        assertThat(plans).filteredOn(HolderPlan::failsAfterPause).isNotEmpty().allSatisfy(plan -> {
            assertThat(plan.kind()).isEqualTo(FaultKind.PAUSE_HOLDER);
            long release = Math.max(plan.pauseMillis(), plan.beforeChargeMillis());
            Workload.Caller late = plan.retries().get(plan.retries().size() - 1);
            assertThat(late.atMillis()).isGreaterThan(release);
            assertThat(late.policy()).isEqualTo(dev.idemlab.idempotency.InFlightPolicy.WAIT);
            // whoever took the key over (at a lease at the earliest) still holds it when the late retry comes
            assertThat(plan.retries().subList(0, plan.retries().size() - 1))
                    .allSatisfy(retry -> assertThat(LEASE.toMillis() + retry.actionMillis()).isGreaterThan(late.atMillis()));
        });
        assertThat(plans).anyMatch(plan -> plan.kind() == FaultKind.PAUSE_HOLDER && !plan.failsAfterPause());
        // the workflows' holders stop at a step boundary: they never fail instead of charging
        assertThat(HolderPlan.draw(5, schedule, 0, LEASE, true)).noneMatch(HolderPlan::failsAfterPause);
    }

    @Test
    void theMemoryStoreHasNoHolderFaults() {
        try (MemoryTarget memory = new MemoryTarget(new dev.idemlab.lab.infra.MemoryBackend().server(), LEASE)) {
            assertThat(Nemesis.kinds(memory)).noneMatch(FaultKind::onChildHolder);
        }
    }
}
