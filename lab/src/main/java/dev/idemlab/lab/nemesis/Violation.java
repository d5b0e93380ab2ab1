package dev.idemlab.lab.nemesis;

/**
 * One thing a nemesis history shows that the coordinator's contract forbids. Immutable.
 *
 * @param rule which rule broke, in a word: {@code duplicate-charge}, {@code answer-not-in-ledger},
 *     {@code no-answer}, {@code outlived-bound}, {@code action-after-cancel}
 * @param key the index of the key whose calls broke it
 * @param detail what the history shows, in a sentence
 */
public record Violation(String rule, int key, String detail) { }
