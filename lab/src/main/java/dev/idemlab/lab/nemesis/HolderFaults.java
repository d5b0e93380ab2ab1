package dev.idemlab.lab.nemesis;

import dev.idemlab.lab.faults.FaultKind;

import java.time.Duration;

/**
 * Plays the holder faults ({@code pause-holder}, {@code kill-holder}) of a run: on a holder in a child
 * JVM the nemesis starts for one key ({@link ChildHolderFaults}), or on the JVM that serves every call
 * (the Spring Boot sample, {@link SampleHolderFaults}). Not thread-safe: the nemesis plays one fault at
 * a time.
 */
interface HolderFaults {

    /** What {@link #inject} returns for a fault played on a JVM that holds every key in flight, not one. */
    int EVERY_KEY = -1;

    /**
     * Plays {@code kind} for about {@code length}; returns the key the holder held, or {@link #EVERY_KEY}.
     * A fault played on a JVM that holds every key runs {@code tookEffect} once that JVM is stopped or
     * dead, so that the fault is recorded as beginning then: a signal is sent by a process of its own,
     * which on a loaded machine can take longer to start than the holder's next charge, and a charge the
     * JVM made before its stop must not look like one made during it.
     *
     * @throws IllegalStateException when the fault could not be played in full
     * @throws InterruptedException when the nemesis was stopped while it waited
     */
    int inject(FaultKind kind, Duration length, Runnable tookEffect) throws InterruptedException;
}
