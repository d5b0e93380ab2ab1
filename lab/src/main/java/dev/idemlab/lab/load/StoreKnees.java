package dev.idemlab.lab.load;

import dev.idemlab.lab.infra.ServerInfo;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One store's knee through the coordinator beside its knee driven raw, by the same harness on the same
 * server, and whether their ratio meets the store's target. Immutable and thread-safe.
 *
 * @param server the store's server, with its durability where it was read
 * @param coordinator the knee through the coordinator
 * @param raw the knee of the raw driver ({@link RawTarget})
 */
public record StoreKnees(ServerInfo server, Knee coordinator, Knee raw) {

    /** The least ratio to raw each network store must keep (issue #25); memory is reported, not held to one. */
    public static final Map<String, Double> TARGETS = Map.of("redis", 0.5, "postgres", 0.5);

    public StoreKnees {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(coordinator, "coordinator");
        Objects.requireNonNull(raw, "raw");
    }

    /** The coordinator's knee over the raw one, or empty when the raw driver passed no rate. */
    public OptionalDouble ratio() {
        return raw.passing() == 0 ? OptionalDouble.empty()
                : OptionalDouble.of((double) coordinator.passing() / raw.passing());
    }

    /**
     * How far to trust the ratio: {@code at most} when the raw knee is above every rate tried (a larger
     * raw knee lowers it), {@code at least} when the coordinator's is, {@code unbounded} when both are
     * (the ratio says nothing), empty when both knees are bracketed.
     */
    public String ratioBound() {
        boolean rawOpen = raw.failing() == 0;
        boolean coordinatorOpen = coordinator.failing() == 0;
        if (rawOpen && coordinatorOpen) {
            return "unbounded";
        }
        return rawOpen ? "at most" : coordinatorOpen ? "at least" : "";
    }

    /** The target ratio for this store, if it has one. */
    public OptionalDouble target() {
        Double target = TARGETS.get(server.store());
        return target == null ? OptionalDouble.empty() : OptionalDouble.of(target);
    }

    /** {@code met}, {@code missed}, or {@code reported} for a store without a target. */
    public String verdict() {
        if (target().isEmpty()) {
            return "reported";
        }
        return ratio().isPresent() && ratio().getAsDouble() >= target().getAsDouble() ? "met" : "missed";
    }
}
