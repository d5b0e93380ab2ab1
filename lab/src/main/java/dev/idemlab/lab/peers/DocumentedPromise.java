package dev.idemlab.lab.peers;

import java.util.Map;
import java.util.Optional;

/**
 * What a library's own documentation says it does, in a short quoted phrase, with the page it is on:
 * printed beside what the ledger showed, so that a reader can weigh the two. Immutable.
 *
 * @param page the documentation page, by name
 * @param phrase the phrase, quoted as it stands there
 */
public record DocumentedPromise(String page, String phrase) {

    private static final DocumentedPromise JDEMPOTENT = new DocumentedPromise("Jdempotent's README, Trendyol/Jdempotent on GitHub",
            "Make your endpoints idempotent easily");

    private static final Map<String, DocumentedPromise> BY_LIBRARY = Map.of(
            LabPeers.WAIT, new DocumentedPromise("this repository's README, the first row explained",
                    "B finds the reservation, waits for A and replays `ch_1`"),
            LabPeers.RAISE, new DocumentedPromise("this repository's README, the first row explained",
                    "Under `raise` B is turned away at once (409 in an API)"),
            LabPeers.RUN, new DocumentedPromise("this repository's README, the first row explained",
                    "Both callers got `ch_1` [...] yet the ledger holds `ch_1` and `ch_2`"),
            "jdempotent-memory", JDEMPOTENT,
            "jdempotent-redis", JDEMPOTENT,
            "redisson-lock", new DocumentedPromise("Redisson documentation, Locks and synchronizers: Lock",
                    "it prolongs lock expiration while lock holder Redisson instance is alive"),
            "spring-integration", new DocumentedPromise("Spring Integration reference, Idempotent Receiver "
                    + "Enterprise Integration Pattern", "the whole idempotency logic should be implemented in the application"),
            "camel", new DocumentedPromise("Apache Camel, Idempotent Consumer EIP",
                    "Camel will add the message id eagerly to the repository to detect duplication also for "
                            + "Exchange's currently in progress"),
            "dbos", new DocumentedPromise("DBOS documentation, Idempotency tutorial",
                    "set an idempotency key for a workflow to guarantee it executes only once, even if called "
                            + "multiple times with that key"));

    /** The promise of the library called {@code name}, if one is on record. */
    public static Optional<DocumentedPromise> of(String name) {
        return Optional.ofNullable(BY_LIBRARY.get(name));
    }
}
