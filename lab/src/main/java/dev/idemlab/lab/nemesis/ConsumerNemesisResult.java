package dev.idemlab.lab.nemesis;

import java.util.List;

/** One consumer nemesis run: its history, what was drawn for it, and the checker's verdict. Immutable. */
public record ConsumerNemesisResult(ConsumerHistory history, ConsumerWorkload workload, FaultSchedule schedule,
                                   List<Violation> violations, List<String> explained) {

    public ConsumerNemesisResult {
        violations = List.copyOf(violations);
        explained = List.copyOf(explained);
    }

    public boolean passed() {
        return violations.isEmpty();
    }

    /** The violations by rule, for a test or a script. */
    public java.util.Map<String, Long> byRule() {
        return violations.stream().collect(java.util.stream.Collectors.groupingBy(Violation::rule,
                java.util.TreeMap::new, java.util.stream.Collectors.counting()));
    }
}
