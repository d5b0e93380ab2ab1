package dev.idemlab.lab.probe;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The keys one probe run sends: each check's own, fresh in every run, so that a probe can be run again
 * on the same server. A key names the run and its check, unless the API publishes that a key is a UUID
 * ({@link PublishedRules.KeyFormat#UUID}): then each check's key is a random UUID, so that the rows judge
 * the API by its other rules instead of getting 400 for the key alone. Used by one thread.
 */
final class ProbeKeys {

    private final PublishedRules.KeyFormat format;
    /** The run's id, first in every key of its own, so that no two probes share one. */
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    /** Each check's key: a check that sends its key again (a retry, a second field line) sends the same. */
    private final Map<String, String> byCheck = new HashMap<>();

    ProbeKeys(PublishedRules.KeyFormat format) {
        this.format = format;
    }

    /** The key of {@code check} in this run: the same one each time it is asked for. */
    String of(String check) {
        return byCheck.computeIfAbsent(check, name -> format == PublishedRules.KeyFormat.UUID
                ? UUID.randomUUID().toString() : "probe-" + run + "-" + name);
    }

    /** A key of exactly {@code length} characters, this run's own: even one of 8 characters differs per run. */
    String ofLength(int length) {
        String head = run + "-probe-length-" + length + "-";
        return head.length() >= length ? head.substring(0, length) : head + "k".repeat(length - head.length());
    }

    /**
     * A key of a UUID's length and shape that is not a UUID: a random one with its first character made
     * 'g', not a hexadecimal digit, so that a server checking only the length or the dashes takes it.
     */
    String notAUuid() {
        return "g" + UUID.randomUUID().toString().substring(1);
    }
}
