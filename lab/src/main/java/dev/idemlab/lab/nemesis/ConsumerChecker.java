package dev.idemlab.lab.nemesis;

import dev.idemlab.provider.Charge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The consumer nemesis's checker. It reads only the history ({@link ConsumerHistory}: the events, the
 * faults, the ledger and the broker's offsets) and names each broken rule with its witness:
 * <ul>
 *   <li>{@code lost-record}: a key the producer sent that the ledger never charged once the run settled;</li>
 *   <li>{@code uncommitted-at-end}: a partition whose committed offset stayed below its end after the settle;</li>
 *   <li>{@code commit-past-unfinished}: a commit, at the moment it was asked, past a record no member had
 *       finished by then (finished: the adapter's acknowledging outcome, HANDLED or REPLAYED);</li>
 *   <li>{@code duplicate-charge}: a key charged more than once, beyond what events of its own explain. With
 *       the provider deduplicating on the downstream key nothing explains one. Without, each extra charge
 *       needs one event, used once: the member that had begun the key and not finished it was killed or
 *       stopped (the unsafe case the adapter documents: a holder gone or paused past its lease, whose key a
 *       redelivery then takes over), or a store fault was on during a handling of the key by one member;</li>
 *   <li>{@code not-sent}: a record the producer could not send (the run cannot vouch for it); and
 *       {@code nothing-charged}, {@code nothing-committed} for a run that proves nothing.</li>
 * </ul>
 * Stateless.
 */
final class ConsumerChecker {

    /** After a store fault ends, how long its effects may last: the circuit's cool-down, a reconnection. */
    private static final long RECOVERY_MICROS = TimeUnit.SECONDS.toMicros(1);

    private ConsumerChecker() { }

    static List<Violation> check(ConsumerHistory history) {
        return check(history, new ArrayList<>());
    }

    /**
     * As {@link #check(ConsumerHistory)}; {@code explained} gets a line for each key charged more than once
     * whose extra charges were all explained, naming the events that explain them.
     */
    static List<Violation> check(ConsumerHistory history, List<String> explained) {
        List<Violation> violations = new ArrayList<>();
        Map<String, List<Charge>> charges = history.ledger().stream()
                .collect(Collectors.groupingBy(Charge::orderId, TreeMap::new, Collectors.toList()));
        Set<String> produced = new HashSet<>();
        for (ConsumerEvent sent : history.of('P')) {
            produced.add(sent.key());
        }
        for (ConsumerEvent failed : history.events()) {
            if (failed.kind() == 'E' && failed.member().equals("producer")) {
                violations.add(new Violation("not-sent", index(failed.key()), failed.key() + ": " + failed.detail()));
            }
        }
        produced.stream().sorted().filter(key -> !charges.containsKey(key)).forEach(key -> violations.add(new Violation(
                "lost-record", index(key), key + " was sent (" + where(history, key) + ") and never charged: "
                + handlings(history, key))));
        history.ends().forEach((partition, end) -> {
            long committed = history.committed().getOrDefault(partition, 0L);
            if (committed < end) {
                violations.add(new Violation("uncommitted-at-end", -1, "partition " + partition + ": committed " + committed
                        + " of " + end + " records after the settle"));
            }
        });
        violations.addAll(commitsPastUnfinished(history));
        Set<String> used = new HashSet<>();
        charges.forEach((key, made) -> {
            if (made.size() > 1) {
                duplicate(history, key, made, used, explained).ifPresent(violations::add);
            }
        });
        if (history.ledger().isEmpty()) {
            violations.add(new Violation("nothing-charged", -1, "the run charged nothing: it proves nothing"));
        }
        if (history.of('C').isEmpty()) {
            violations.add(new Violation("nothing-committed", -1, "no member committed anything: it proves nothing"));
        }
        return violations;
    }

    /** Each commit asked past a record that no member had finished at that moment. */
    private static List<Violation> commitsPastUnfinished(ConsumerHistory history) {
        Map<Integer, TreeMap<Long, ConsumerEvent>> records = new HashMap<>();
        for (ConsumerEvent sent : history.of('P')) {
            records.computeIfAbsent(sent.partition(), p -> new TreeMap<>()).put(sent.offset(), sent);
        }
        Map<String, Long> firstFinish = new HashMap<>();
        for (ConsumerEvent finished : history.of('F')) {
            firstFinish.merge(finished.partition() + "@" + finished.offset(), finished.micros(), Math::min);
        }
        // per partition, in offset order: the latest "first finish" of any record up to each offset
        Map<Integer, TreeMap<Long, long[]>> prefix = new HashMap<>();
        records.forEach((partition, offsets) -> {
            TreeMap<Long, long[]> running = new TreeMap<>();
            long latest = Long.MIN_VALUE;
            long latestOffset = -1;
            for (Long offset : offsets.keySet()) {
                long finish = firstFinish.getOrDefault(partition + "@" + offset, Long.MAX_VALUE);
                if (finish > latest) {
                    latest = finish;
                    latestOffset = offset;
                }
                running.put(offset, new long[] {latest, latestOffset});
            }
            prefix.put(partition, running);
        });
        List<Violation> violations = new ArrayList<>();
        for (ConsumerEvent commit : history.of('C')) {
            TreeMap<Long, long[]> running = prefix.get(commit.partition());
            Map.Entry<Long, long[]> upTo = running == null ? null : running.lowerEntry(commit.offset());
            if (upTo == null || upTo.getValue()[0] <= commit.micros()) {
                continue;
            }
            long offset = upTo.getValue()[1];
            ConsumerEvent record = records.get(commit.partition()).get(offset);
            long finished = upTo.getValue()[0];
            violations.add(new Violation("commit-past-unfinished", index(record.key()), commit.member() + " committed "
                    + commit.offset() + " on partition " + commit.partition() + " (" + commit.detail() + ") while the record at "
                    + offset + " (" + record.key() + ") was unfinished: " + (finished == Long.MAX_VALUE ? "no member ever finished it"
                    : "first finished " + millis(finished - commit.micros()) + " later"), List.of(handlings(history, record.key()))));
        }
        return violations;
    }

    /** A key charged {@code made.size()} times: a violation unless each charge beyond the first is explained. */
    private static java.util.Optional<Violation> duplicate(ConsumerHistory history, String key, List<Charge> made,
                                                           Set<String> used, List<String> explained) {
        int extra = made.size() - 1;
        List<String> explanations = history.settings().downstreamKey() ? List.of() : explanations(history, key, used);
        if (explanations.size() >= extra) {
            explained.add(key + " charged " + made.stream().map(Charge::id).toList() + ", explained by "
                    + explanations.subList(0, extra) + "; handlings: " + handlings(history, key));
            return java.util.Optional.empty();
        }
        List<String> witness = new ArrayList<>();
        witness.add("charges: " + made.stream().map(Charge::id).toList() + " for " + key + " (" + where(history, key) + ")");
        witness.add("handlings: " + handlings(history, key));
        witness.add(explanations.isEmpty() ? (history.settings().downstreamKey()
                ? "UNEXPLAINED: the provider deduplicates on the downstream key, nothing excuses a second charge"
                : "UNEXPLAINED: no member handling it was killed or stopped, no store fault during its handling")
                : "explained only " + explanations.size() + " of " + extra + ": " + explanations);
        return java.util.Optional.of(new Violation("duplicate-charge", index(key), key + " was charged " + made.size()
                + " times", witness));
    }

    /** The events that may explain an extra charge of {@code key}, each once. */
    private static List<String> explanations(ConsumerHistory history, String key, Set<String> used) {
        List<String> found = new ArrayList<>();
        Map<String, long[]> windows = new HashMap<>(); // member -> first begin, last finish (or MAX)
        for (ConsumerEvent event : history.events()) {
            if (key.equals(event.key()) && (event.kind() == 'B' || event.kind() == 'F' || event.kind() == 'H')) {
                long[] window = windows.computeIfAbsent(event.member(), m -> new long[] {event.micros(), Long.MAX_VALUE});
                window[0] = Math.min(window[0], event.micros());
                if (event.kind() == 'F') {
                    window[1] = window[1] == Long.MAX_VALUE ? event.micros() : Math.max(window[1], event.micros());
                }
            }
        }
        for (ConsumerFault fault : history.faults()) {
            if (!fault.injected()) {
                continue;
            }
            if (fault.kind().onConsumers()) {
                long[] window = windows.get(fault.member());
                if ((fault.kind() == dev.idemlab.lab.faults.FaultKind.KILL_CONSUMER
                        || fault.kind() == dev.idemlab.lab.faults.FaultKind.PAUSE_CONSUMER)
                        && window != null && window[0] <= fault.endedMicros() && window[1] >= fault.startedMicros()
                        && used.add(fault.toString() + fault.startedMicros())) {
                    found.add(fault + " while it handled " + key);
                }
            } else {
                windows.forEach((member, window) -> {
                    if (fault.overlaps(window[0], window[1] == Long.MAX_VALUE ? history.events().get(history.events().size() - 1)
                            .micros() : window[1], RECOVERY_MICROS) && used.add(fault.toString() + fault.startedMicros() + member)) {
                        found.add(fault + " while " + member + " handled " + key);
                    }
                });
            }
        }
        return found;
    }

    private static String where(ConsumerHistory history, String key) {
        return history.of('P').stream().filter(sent -> sent.key().equals(key))
                .map(sent -> "partition " + sent.partition() + " offset " + sent.offset()).collect(Collectors.joining(", "));
    }

    /** The members' events for {@code key}, in order, for a witness. */
    private static String handlings(ConsumerHistory history, String key) {
        long first = history.events().isEmpty() ? 0 : history.events().stream().mapToLong(ConsumerEvent::micros).min().orElse(0);
        List<String> lines = history.events().stream()
                .filter(event -> key.equals(event.key()) && "BHFE".indexOf(event.kind()) >= 0)
                .sorted(java.util.Comparator.comparingLong(ConsumerEvent::micros))
                .map(event -> millis(event.micros() - first) + " " + event.member() + " " + switch (event.kind()) {
                    case 'B' -> "began";
                    case 'H' -> "charged " + event.detail();
                    case 'F' -> "finished " + event.partition() + "@" + event.offset() + " " + event.detail();
                    default -> "failed " + event.detail();
                }).toList();
        return lines.isEmpty() ? "no member ever began it" : String.join("; ", lines);
    }

    private static String millis(long micros) {
        return String.format(java.util.Locale.ROOT, "%.1f ms", micros / 1000.0);
    }

    /** The key's number ({@code k-12} is 12), for the violation's key field. */
    static int index(String key) {
        try {
            return Integer.parseInt(key.substring(key.indexOf('-') + 1));
        } catch (RuntimeException notOurs) {
            return -1;
        }
    }
}
