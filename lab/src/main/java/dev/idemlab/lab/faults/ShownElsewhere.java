package dev.idemlab.lab.faults;

import java.util.List;


/**
 * Catalogue cases this suite does not inject itself: each row says where the fault is injected for
 * real instead (a test or a failure-lab scenario), or why it does not apply to these stores.
 */
final class ShownElsewhere {

    private ShownElsewhere() { }

    static List<FaultCase> all() {
        return List.of(
                elsewhere(5, "holder JVM crashes after charging", "SIGKILL of a holder in a child JVM",
                        "at most one charge with the key passed downstream", "the failure lab's crash-mid-charge "
                                + "scenario (a child JVM killed for real; the ledger lives in the provider service)"),
                elsewhere(7, "action duration close to the lease", "actions longer than the lease",
                        "never two answers with different charges", "LeasesHoldOnEveryStoreTest (actions past the "
                                + "lease with and without renewals, on every store) and the failure lab's lease-overrun"),
                elsewhere(12, "lost reply, own token replayed", "the first reserve's reply dropped",
                        "the owner recognises its own token", "RedisCoordinatorTest (LostFirstReserveReply) and the "
                                + "store contract's own-token reserve test on every store"),
                notApplicable(14, "Redis SIGKILL after the effect, no persistence",
                        "the private Redis runs without persistence: a killed server loses every record; the failure "
                                + "lab's store-down --downstream-key shows the provider's key keeping one charge"),
                notApplicable(16, "crash within a second of a write with appendfsync everysec",
                        "the private Redis runs without persistence here; measured with a durable configuration by "
                                + "the benchmarks' durable runs, not by this suite"),
                elsewhere(19, "memory eviction", "maxmemory with allkeys-lru", "eviction is reported; the retry "
                        + "charges again unless the key goes downstream", "the failure lab's eviction scenario"),
                elsewhere(20, "early expiry or a clock jump", "the marker expired under a live holder",
                        "the stale holder is fenced", "case 6 of this suite (renewals dropped, marker expired by the "
                                + "store's clock, the provider's fence check)"),
                elsewhere(21, "application clock versus store clock", "expiry decided by the store's clock",
                        "the store's time decides", "the store contract (every expiry test runs on the store's own "
                                + "clock: Redis PX, PostgreSQL now(), the memory store's ticker)"),
                elsewhere(22, "asynchronous failover", "replica stopped, master killed, replica promoted",
                        "the lost-marker rate measured; WAIT makes an unacknowledged reservation a storage error",
                        "the failover scenario on the local Redis Cluster"),
                elsewhere(23, "claim transaction held open", "claim and action in one transaction",
                        "claims commit alone", "by design: every PostgreSQL operation is one autocommit statement "
                                + "(the contract's concurrent-reserve test shows no claim waits on another)"),
                notApplicable(26, "40001 under REPEATABLE READ or SERIALIZABLE",
                        "the store runs every statement in its own READ COMMITTED autocommit transaction"),
                notApplicable(27, "replica read", "the stores read and write only the primary they are given"));
    }

    private static FaultCase elsewhere(int number, String fault, String injection, String invariant, String where) {
        return new Case(number, fault, injection, invariant, Case.ANY, rig -> new FaultCase.Outcome("shown in " + where,
                FaultRow.Verdict.SHOWN_ELSEWHERE));
    }

    private static FaultCase notApplicable(int number, String fault, String why) {
        return new Case(number, fault, "-", "-", Case.ANY, rig -> new FaultCase.Outcome(why,
                FaultRow.Verdict.DOES_NOT_APPLY));
    }
}
