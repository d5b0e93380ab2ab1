package dev.idemlab.idempotency.internal;

import dev.idemlab.idempotency.IdempotentCall;

/**
 * Starts the observation of each call through the coordinator. {@link #NONE} unless a Micrometer
 * {@code ObservationRegistry} was configured, and then {@link MicrometerObservations}, which is the
 * only class that loads Micrometer's Observation API. Thread-safe.
 */
interface ObservedCalls {

    /** Observes no call. */
    ObservedCalls NONE = call -> CallObservation.NONE;

    /** Starts observing {@code call}, as a child of the thread's current observation if there is one. */
    CallObservation start(IdempotentCall call);
}
