package dev.idemlab.lab.nemesis;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * One line of the consumer nemesis's history, written by a group member (in a child JVM or in the lab's)
 * or by the producer: what happened, when (microseconds of the machine's wall clock, which every process
 * of one run on one machine shares), who did it, and about which record. Immutable.
 *
 * <p>Kinds: {@code P} the producer's record landed ({@code key}, {@code partition}, {@code offset});
 * {@code B} a member began handling a delivery of {@code key}; {@code H} its handler charged ({@code detail}
 * the charge id); {@code F} the delivery finished with an acknowledging outcome ({@code detail}), before
 * any commit may cover it; {@code C} the member asked the broker to commit {@code offset} on
 * {@code partition}, the time taken before the request left ({@code detail} {@code ok} or why it failed);
 * {@code E} a delivery that failed (not acknowledged; {@code detail} why).
 */
record ConsumerEvent(char kind, long micros, String member, String key, int partition, long offset, String detail) {

    ConsumerEvent {
        Objects.requireNonNull(member, "member");
        key = key == null ? "-" : key;
        detail = detail == null ? "-" : detail.replace('\t', ' ').replace('\n', ' ');
    }

    /** Now, in microseconds since the epoch. */
    static long now() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /** The tab-separated line a child prints, read back by {@link #parse}. */
    String line() {
        return kind + "\t" + micros + "\t" + member + "\t" + key + "\t" + partition + "\t" + offset + "\t" + detail;
    }

    /** A line of {@link #line()}'s form, or {@code null} for any other line a child printed (a warning). */
    static ConsumerEvent parse(String line) {
        String[] fields = line.split("\t", -1);
        if (fields.length != 7 || fields[0].length() != 1 || "PBHFCE".indexOf(fields[0].charAt(0)) < 0) {
            return null;
        }
        try {
            return new ConsumerEvent(fields[0].charAt(0), Long.parseLong(fields[1]), fields[2], fields[3],
                    Integer.parseInt(fields[4]), Long.parseLong(fields[5]), fields[6]);
        } catch (NumberFormatException notOurs) {
            return null;
        }
    }
}
