package dev.idemlab.lab.nemesis;

import dev.idemlab.provider.Charge;

import java.util.List;
import java.util.Map;

/**
 * What one consumer nemesis run leaves for its checker: every {@link ConsumerEvent} (the producer's
 * records, each member's deliveries, charges, finishes and commits), the faults as they happened, the
 * provider's ledger, and what the broker says at the end: the group's committed offset and the end of
 * the log, per partition. The checker reads nothing else. Immutable.
 */
record ConsumerHistory(ConsumerNemesis.Settings settings, String storeName, String store, String broker, List<ConsumerEvent> events,
                       List<ConsumerFault> faults, List<Charge> ledger, Map<Integer, Long> committed,
                       Map<Integer, Long> ends, int membersStarted, long elapsedMillis, boolean settled) {

    ConsumerHistory {
        events = List.copyOf(events);
        faults = List.copyOf(faults);
        ledger = List.copyOf(ledger);
        committed = Map.copyOf(committed);
        ends = Map.copyOf(ends);
    }

    List<ConsumerEvent> of(char kind) {
        return events.stream().filter(event -> event.kind() == kind).toList();
    }
}
