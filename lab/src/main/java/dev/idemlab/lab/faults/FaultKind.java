package dev.idemlab.lab.faults;

import java.util.Arrays;
import java.util.Locale;

/**
 * The lab's one vocabulary of faults, named after what the coordinator meets rather than after what
 * injects it (as a chaos proxy names its toxics): the nemesis schedules them by these names, and its
 * results count them by these names, whatever injects them on a given store.
 */
public enum FaultKind {

    /** Every command waits: Redis {@code CLIENT PAUSE n ALL}. */
    PAUSE_ALL("pause-all", "every command waits (CLIENT PAUSE ALL)", false),
    /** Writes wait, reads answer: Redis {@code CLIENT PAUSE n WRITE}. */
    PAUSE_WRITE("pause-write", "writes wait, reads answer (CLIENT PAUSE WRITE)", false),
    /** The server drops the store's connections: {@code CLIENT KILL}, {@code pg_terminate_backend}. */
    KILL_CONNECTIONS("kill-connections", "the server drops the store's connections (CLIENT KILL, pg_terminate_backend)", false),
    /** A proxy between store and server holds every byte, both ways, then lets them through. */
    FREEZE("freeze", "the network holds every byte, then delivers it (TCP proxy freeze)", false),
    /** Requests reach the server and run; their replies are lost, then the connections reset. */
    DROP_REPLIES("drop-replies", "requests run, replies are lost, then connections reset (TCP proxy)", false),
    /**
     * Requests are lost on their way to the server and never run; no reply comes, then the connections
     * reset: an outage in which a client that gave up wrote nothing, whatever it must assume.
     */
    DROP_REQUESTS("drop-requests", "requests are lost before the server, nothing runs, then connections reset (TCP proxy)",
            false),
    /** Every connection between store and server is reset at once. */
    RESET("reset", "every connection is reset (TCP proxy)", false),
    /** The server process is stopped ({@code SIGSTOP}), then continued. */
    STOP_SERVER("stop-server", "the server process stops, then continues (SIGSTOP, SIGCONT)", false),
    /** The store's PostgreSQL backends are stopped ({@code SIGSTOP}), then continued. */
    STOP_BACKENDS("stop-backends", "the store's backends stop, then continue (SIGSTOP, SIGCONT)", false),
    /** The records' table is locked by another transaction: {@code LOCK TABLE ... ACCESS EXCLUSIVE}. */
    LOCK_TABLE("lock-table", "another transaction holds the table (LOCK TABLE ACCESS EXCLUSIVE)", false),
    /** A hash slot moves between two masters of a Redis Cluster, key by key, as resharding moves it. */
    MIGRATE_SLOT("migrate-slot", "a slot moves between masters key by key: ASK and TRYAGAIN meanwhile (Redis Cluster)", false),
    /** A replica takes over its master in a planned failover ({@code CLUSTER FAILOVER}): nothing is lost. */
    FAILOVER("failover", "a replica takes over its master, planned (CLUSTER FAILOVER): nothing written is lost", false),
    /**
     * The server is saved ({@code SAVE}), takes writes a while, then dies ({@code SIGKILL}) and comes
     * back from that snapshot: what was written since is gone, reservations and results alike.
     */
    RESTART_FROM_SNAPSHOT("restart-from-snapshot",
            "the server dies and comes back from its last RDB snapshot: writes since it are lost", true),
    /** The store's clock jumps past the lease: every reservation held ends at once. */
    CLOCK_JUMP("clock-jump", "the store's clock jumps past the lease (the memory store's ticker)", true),
    /**
     * A holder in a child JVM reserved a key that in-process retries also send, started an action longer
     * than the lease, and is stopped ({@code SIGSTOP}) past its lease, then continued: it charges and
     * completes as it resumes, or (half the pauses, as the seed says) its action fails as it resumes and
     * it releases the key it lost. Not on the memory store, which no other process can reach.
     */
    PAUSE_HOLDER("pause-holder", "a holder in a child JVM is stopped past its lease, then continued (SIGSTOP, SIGCONT;"
            + " not on memory)", false),
    /**
     * A holder in a child JVM reserved a key that in-process retries also send and is killed
     * ({@code SIGKILL}) during its action, before or after it charged. Not on the memory store.
     */
    KILL_HOLDER("kill-holder", "a holder in a child JVM is killed during its action, before or after it charged"
            + " (SIGKILL; not on memory)", false),
    /**
     * A member of a consumer group, in a child JVM, is killed ({@code SIGKILL}) whatever it was handling; a
     * fresh member joins after the fault's length (the consumer nemesis, {@code --through kafka}).
     */
    KILL_CONSUMER("kill-consumer", "a consumer group member in a child JVM is killed, a fresh one joins later (SIGKILL)",
            false),
    /**
     * A member of a consumer group, in a child JVM, is stopped ({@code SIGSTOP}) past its session timeout
     * and poll interval, then continued: the group hands its partitions to others meanwhile.
     */
    PAUSE_CONSUMER("pause-consumer", "a consumer group member in a child JVM is stopped past its session and poll"
            + " interval, then continued (SIGSTOP, SIGCONT)", false),
    /** A consumer joins the group, or one leaves it: the group rebalances its partitions. */
    REBALANCE("rebalance", "a consumer joins the group or leaves it: the group rebalances", false),
    /** The Kafka broker stops (a controlled shutdown) and starts again on its own log: records and offsets stay. */
    RESTART_BROKER("restart-broker", "the Kafka broker stops and starts again on its log (in-process broker only)",
            false),
    /** The executor that resumes asynchronous calls rejects every task for a while. */
    REJECT_RESUMPTIONS("reject-resumptions", "the executor of asynchronous calls rejects every task", false);

    private final String id;
    private final String what;
    private final boolean breaksStorePromise;

    FaultKind(String id, String what, boolean breaksStorePromise) {
        this.id = id;
        this.what = what;
        this.breaksStorePromise = breaksStorePromise;
    }

    /** The name in commands and reports: {@code pause-all}. */
    public String id() {
        return id;
    }

    /** What the coordinator meets, and what injects it. */
    public String what() {
        return what;
    }

    /**
     * Whether the fault breaks a promise the store makes (its records outlive their lease or ttl as
     * its clock says), so that a second charge after it is the store's doing, not the coordinator's.
     */
    public boolean breaksStorePromise() {
        return breaksStorePromise;
    }

    /** Whether the fault is played on a holder in a child JVM rather than on the store or the callers. */
    public boolean onChildHolder() {
        return this == PAUSE_HOLDER || this == KILL_HOLDER;
    }

    /** Whether the fault hits the consumer group or its broker (the consumer nemesis's), not the store. */
    public boolean onConsumers() {
        return this == KILL_CONSUMER || this == PAUSE_CONSUMER || this == REBALANCE || this == RESTART_BROKER;
    }

    /**
     * @throws IllegalArgumentException for a name that is none of these, listing them
     */
    public static FaultKind of(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(kind -> kind.id.equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + id + "'; known: "
                        + String.join(", ", Arrays.stream(values()).map(FaultKind::id).toList())));
    }
}
