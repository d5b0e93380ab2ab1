package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * How {@link IdempotencyFilter} treats one route: the operation its records are stored under, the
 * coordinator that runs it, whether a key is required, what the fingerprint covers, which headers a
 * replay repeats and who the client is.
 *
 * <p>Immutable and thread-safe. Build one with {@link #custom}; every rule is checked when it is
 * built, with an {@link InvalidIdempotencyConfigException} naming the rule.
 */
public final class IdempotentRoute {

    /** The methods the draft makes fault-tolerant (section 1, Introduction): POST and PATCH. */
    public static final List<String> DEFAULT_METHODS = List.of("POST", "PATCH");
    /** Headers a replay repeats unless told otherwise: a replayed body keeps its type and location. */
    public static final List<String> DEFAULT_REPLAYED_HEADERS = List.of("Content-Type", "Location");
    /** The largest request body read for the fingerprint; a larger one is refused with 413. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /**
     * The largest body limit a route accepts, 1 GiB: the filter holds the whole body in memory to
     * fingerprint it and reads one byte past the limit to tell an oversized body, so a limit near
     * {@code Integer.MAX_VALUE} overflows that read and fails every request; and no request whose
     * retries are worth deduplicating is a gigabyte.
     */
    public static final int MAX_BODY_BYTES = 1 << 30;
    /** The status of a key reused with another request: the draft's (section 2.7, Error Scenarios). */
    public static final int DEFAULT_MISMATCH_STATUS = 422;

    /** The longest operation name: the filter appends the client's scope, and the core allows 100. */
    public static final int MAX_OPERATION_LENGTH = 60;

    private final String operation;
    private final IdempotencyCoordinator coordinator;
    private final Set<String> methods;
    private final boolean keyRequired;
    private final URI documentation;
    private final List<String> fingerprintedHeaders;
    private final List<String> replayedHeaders;
    private final ClientResolver clients;
    private final boolean anonymousAllowed;
    private final boolean waitingAllowed;
    private final int maxBodyBytes;
    private final boolean bareKeysAccepted;
    private final int mismatchStatus;
    private final RefusalWriter refusals;

    private IdempotentRoute(Builder b) {
        this.operation = b.operation;
        this.coordinator = b.coordinator;
        this.methods = Set.copyOf(b.methods);
        this.keyRequired = b.keyRequired;
        this.documentation = b.documentation;
        this.fingerprintedHeaders = List.copyOf(b.fingerprintedHeaders);
        this.replayedHeaders = List.copyOf(b.replayedHeaders);
        this.clients = b.clients;
        this.anonymousAllowed = b.anonymousAllowed;
        this.waitingAllowed = b.waitingAllowed;
        this.maxBodyBytes = b.maxBodyBytes;
        this.bareKeysAccepted = b.bareKeysAccepted;
        this.mismatchStatus = b.mismatchStatus;
        this.refusals = b.refusals;
    }

    /**
     * A builder for a route whose records live under {@code operation} and which {@code coordinator}
     * runs. Not thread-safe.
     */
    public static Builder custom(String operation, IdempotencyCoordinator coordinator) {
        return new Builder(operation, coordinator);
    }

    /** The operation records are stored under, e.g. {@code payment.charge}. */
    public String operation() {
        return operation;
    }

    public IdempotencyCoordinator coordinator() {
        return coordinator;
    }

    /** The methods the filter guards, upper case; other methods pass straight through. */
    public Set<String> methods() {
        return methods;
    }

    /** Whether a request without a key is refused (400) rather than run without idempotency. */
    public boolean keyRequired() {
        return keyRequired;
    }

    /** Where the route's idempotency rules are documented; linked from every problem it answers. */
    public URI documentation() {
        return documentation;
    }

    /** Request headers the fingerprint covers besides method, path and body, as configured. */
    public List<String> fingerprintedHeaders() {
        return fingerprintedHeaders;
    }

    /** Response headers stored with the response and repeated by a replay. */
    public List<String> replayedHeaders() {
        return replayedHeaders;
    }

    public ClientResolver clients() {
        return clients;
    }

    /** Whether a request that names no client shares one anonymous scope instead of being refused (401). */
    public boolean anonymousAllowed() {
        return anonymousAllowed;
    }

    /** Whether a request that finds its key in flight may wait for the result instead of getting 409. */
    public boolean waitingAllowed() {
        return waitingAllowed;
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Whether a key sent bare ({@code Idempotency-Key: abc}), not as a String item, is accepted. */
    public boolean bareKeysAccepted() {
        return bareKeysAccepted;
    }

    /** The status a key reused with another request gets: 422 (the draft's) or 400 (Stripe's). */
    public int mismatchStatus() {
        return mismatchStatus;
    }

    /** How the route's refusals are written; default {@link RefusalWriter#PROBLEM_DETAILS}. */
    public RefusalWriter refusals() {
        return refusals;
    }

    @Override
    public String toString() {
        return "IdempotentRoute{operation=" + operation + ", methods=" + methods + ", keyRequired=" + keyRequired
                + ", documentation=" + documentation + ", policy=" + coordinator.config().policy() + '}';
    }

    /** Builds an {@link IdempotentRoute}. Not thread-safe. */
    public static final class Builder {

        private final String operation;
        private final IdempotencyCoordinator coordinator;
        private Set<String> methods = new LinkedHashSet<>(DEFAULT_METHODS);
        private boolean keyRequired = true;
        private URI documentation;
        private List<String> fingerprintedHeaders = List.of();
        private List<String> replayedHeaders = DEFAULT_REPLAYED_HEADERS;
        private ClientResolver clients = ClientResolver.PRINCIPAL;
        private boolean anonymousAllowed;
        private boolean waitingAllowed;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private boolean bareKeysAccepted;
        private int mismatchStatus = DEFAULT_MISMATCH_STATUS;
        private RefusalWriter refusals = RefusalWriter.PROBLEM_DETAILS;

        private Builder(String operation, IdempotencyCoordinator coordinator) {
            this.operation = Objects.requireNonNull(operation, "operation");
            this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        }

        /** The methods to guard; default POST and PATCH. */
        public Builder methods(String... methods) {
            Set<String> upper = new LinkedHashSet<>();
            for (String method : methods) {
                upper.add(Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT));
            }
            this.methods = upper;
            return this;
        }

        /** Whether a key is required (the default) or optional. A required key needs {@link #documentation}. */
        public Builder keyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
            return this;
        }

        /** Where the route's idempotency rules are documented: an absolute URI. */
        public Builder documentation(URI documentation) {
            this.documentation = Objects.requireNonNull(documentation, "documentation");
            return this;
        }

        /** Request headers whose values the fingerprint covers (say, {@code Content-Type}); default none. */
        public Builder fingerprintedHeaders(String... names) {
            this.fingerprintedHeaders = List.of(names);
            return this;
        }

        /** Response headers a replay repeats; default {@code Content-Type} and {@code Location}. */
        public Builder replayedHeaders(String... names) {
            this.replayedHeaders = List.of(names);
            return this;
        }

        /** Who the client is; default the authenticated principal. */
        public Builder clients(ClientResolver clients) {
            this.clients = Objects.requireNonNull(clients, "clients");
            return this;
        }

        /**
         * Lets requests that name no client share one anonymous scope. Off by default: such a request
         * is refused with 401, since anonymous clients could replay each other's responses.
         */
        public Builder allowAnonymousClients(boolean allowed) {
            this.anonymousAllowed = allowed;
            return this;
        }

        /**
         * Lets the route run on a coordinator whose policy is {@link InFlightPolicy#WAIT}: a request that
         * finds its key in flight then waits for the first one's response instead of getting 409. A
         * deviation from the draft (section 2.7, Error Scenarios: a concurrent request SHOULD get 409),
         * for internal callers that cannot retry; off by default.
         */
        public Builder allowWaiting(boolean allowed) {
            this.waitingAllowed = allowed;
            return this;
        }

        /** The largest request body read; positive, at most {@link #MAX_BODY_BYTES} (1 GiB). Default 1 MiB. */
        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /**
         * Also accepts a key sent bare ({@code Idempotency-Key: 3f2b9c}), as Stripe's SDKs send it. A
         * compatibility deviation from the draft (section 2.1, Syntax: the key is a String item, in
         * quotes); a quoted key is read as the draft says either way. Off by default.
         */
        public Builder acceptBareKeys(boolean accepted) {
            this.bareKeysAccepted = accepted;
            return this;
        }

        /**
         * The status a key reused with another request gets: 422, the draft's and the default, or 400,
         * which Stripe answers (with an {@code idempotency_error}).
         */
        public Builder mismatchStatus(int status) {
            this.mismatchStatus = status;
            return this;
        }

        /** How refusals are written; default RFC 9457 problem details ({@link RefusalWriter#PROBLEM_DETAILS}). */
        public Builder refusals(RefusalWriter refusals) {
            this.refusals = Objects.requireNonNull(refusals, "refusals");
            return this;
        }

        /**
         * @throws InvalidIdempotencyConfigException naming the rule a value breaks
         */
        public IdempotentRoute build() {
            if (!operation.matches("[A-Za-z0-9._-]{1," + MAX_OPERATION_LENGTH + "}")) {
                throw new InvalidIdempotencyConfigException("operation", operation,
                        "operation must match [A-Za-z0-9._-]{1," + MAX_OPERATION_LENGTH + "}");
            }
            if (methods.isEmpty()) {
                throw new InvalidIdempotencyConfigException("methods", methods, "name at least one method to guard");
            }
            if (keyRequired && documentation == null) {
                throw new InvalidIdempotencyConfigException("documentation", null, "a route that requires a key "
                        + "needs its documentation URI: the draft's 400 links to it (section 2.7, Error Scenarios)");
            }
            if (documentation != null && !documentation.isAbsolute()) {
                throw new InvalidIdempotencyConfigException("documentation", documentation,
                        "documentation must be an absolute URI");
            }
            if (coordinator.config().policy() == InFlightPolicy.WAIT && !waitingAllowed) {
                throw new InvalidIdempotencyConfigException("allowWaiting", false, "the coordinator's policy is WAIT, "
                        + "but the draft answers a concurrent request with 409: build the coordinator with "
                        + "InFlightPolicy.RAISE, or opt in to waiting with allowWaiting(true)");
            }
            if (maxBodyBytes <= 0 || maxBodyBytes > MAX_BODY_BYTES) {
                throw new InvalidIdempotencyConfigException("maxBodyBytes", maxBodyBytes, "maxBodyBytes must be positive"
                        + " and at most " + MAX_BODY_BYTES + " (1 GiB): the filter holds the body in memory and reads one"
                        + " byte past the limit");
            }
            if (mismatchStatus != 422 && mismatchStatus != 400) {
                throw new InvalidIdempotencyConfigException("mismatchStatus", mismatchStatus, "mismatchStatus must be "
                        + "422 (the draft's) or 400 (Stripe's): a client must read a reused key as its own mistake");
            }
            for (String name : fingerprintedHeaders) {
                requireHeaderName("fingerprintedHeaders", name);
            }
            for (String name : replayedHeaders) {
                requireHeaderName("replayedHeaders", name);
            }
            return new IdempotentRoute(this);
        }

        private static void requireHeaderName(String setting, String name) {
            if (name == null || !name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                throw new InvalidIdempotencyConfigException(setting, name, setting + " must hold HTTP field names");
            }
        }
    }
}
