package dev.idemlab.lab.nemesis;

import java.util.List;
import java.util.Objects;

/**
 * One thing a nemesis history shows that the coordinator's contract forbids, with its witness. Immutable.
 *
 * @param rule which rule broke, in a word: {@code duplicate-charge}, {@code answer-not-in-ledger},
 *     {@code answer-of-another-request}, {@code fence-repeated}, {@code fence-not-increasing},
 *     {@code no-answer}, {@code outlived-bound}, {@code action-after-cancel}, and for a whole run that charged
 *     nothing {@code nothing-charged}
 * @param key the index of the key whose calls broke it
 * @param detail what the history shows, in a sentence
 * @param witness the lines that prove it, beyond the key's calls the report prints: each charge and
 *     what explains it or that nothing does, the faults and stalls around them; empty where the detail
 *     is the whole proof
 */
public record Violation(String rule, int key, String detail, List<String> witness) {

    public Violation {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(detail, "detail");
        witness = List.copyOf(witness);
    }

    /** A violation whose detail is its whole proof. */
    public Violation(String rule, int key, String detail) {
        this(rule, key, detail, List.of());
    }
}
