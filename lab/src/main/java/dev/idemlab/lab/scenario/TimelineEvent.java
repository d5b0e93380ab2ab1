package dev.idemlab.lab.scenario;

/**
 * One message in a scenario's recorded timeline, for the sequence diagram.
 *
 * @param atMs ms since the scenario started
 * @param from the sender: a caller, {@code Coordinator} or {@code Provider}
 * @param to the receiver
 * @param message what was sent
 * @param reply whether this is an answer (drawn dashed)
 */
public record TimelineEvent(long atMs, String from, String to, String message, boolean reply) {
}
