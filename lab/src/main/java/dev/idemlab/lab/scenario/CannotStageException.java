package dev.idemlab.lab.scenario;

/**
 * A scenario cannot be staged on this run's store (store-down on memory, eviction on a Redis given by
 * URL): {@code lab check} reports it as SKIP, {@code lab scenario} as a usage error naming the reason.
 * Its own type, so that a bug inside a scenario (the JDK's {@link UnsupportedOperationException} from an
 * immutable list, say) is never mistaken for a store that cannot stage it.
 */
public final class CannotStageException extends RuntimeException {

    /** @param reason what the scenario needs and what this run has instead, in words about the store */
    public CannotStageException(String reason) {
        super(reason);
    }
}
