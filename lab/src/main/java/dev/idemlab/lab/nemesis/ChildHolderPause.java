package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.scenario.ChildHolder;

import java.time.Duration;

/** A child JVM stopped ({@code SIGSTOP}) for a while and always continued ({@code SIGCONT}), also when interrupted. */
final class ChildHolderPause {

    private ChildHolderPause() { }

    static void pause(ChildHolder child, long millis) {
        child.signal("STOP");
        boolean interrupted;
        try {
            NemesisTarget.hold(Duration.ofMillis(millis));
        } finally {
            interrupted = Thread.interrupted();
            child.signal("CONT");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
