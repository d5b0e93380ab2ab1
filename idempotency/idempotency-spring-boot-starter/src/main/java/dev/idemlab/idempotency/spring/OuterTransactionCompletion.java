package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentResult;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.StoredResult;
import dev.idemlab.idempotency.spi.TransactionalAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Completes the record of an {@code @Idempotent} method called inside a transaction that is already
 * active (its caller's {@code @Transactional}, or the method's own when the advice is ordered inside
 * it) only once that transaction has committed, and releases the key if it rolls back.
 *
 * <p><b>Why.</b> The method's writes through the transaction manager join that transaction, so they
 * commit or roll back with it, after the advice has returned. The coordinator would complete the
 * record on the store's own connection as soon as the method returns: a caller that then rolls back
 * (an exception after the call, {@code setRollbackOnly()}, a constraint that fails at commit) leaves a
 * completed record of an effect that never happened, and the retry replays it. Refusing the
 * combination would forbid the most ordinary shape of a Spring service (a {@code @Transactional}
 * method calling an idempotent one), so the completion follows the transaction instead: the method
 * runs as the key's holder through the core's {@link TransactionalAction}, whose completion registers a
 * {@link TransactionSynchronization}; after commit it completes the reservation with the result, after
 * rollback it releases it, so the retry runs the method again. Until then the key stays reserved, and an
 * identical request from elsewhere waits or gets 409 as for any call in flight; one made again inside
 * the same transaction (a batch with the key twice) is answered from the pending completion
 * ({@link #pending}), since only that transaction's own commit could end its wait.
 *
 * <p><b>Where it stops.</b> The lease is not renewed between the method's return and the commit: a
 * transaction that goes on for longer than {@code idempotency.lease} after the call may see the key
 * taken over, and its late completion is then refused (logged at ERROR). A completion or release that
 * fails after commit (the store unreachable) is logged, and the reservation expires with its lease, after
 * which a retry runs the method again: pass the call's downstream key to any provider it calls. An
 * effect outside the transaction (a remote charge) is not undone by a rollback either, and the retry
 * makes it again, for the same reason. A method whose own {@code @Transactional} does not join the active
 * transaction ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED}) commits before it returns, so its record is
 * completed at once, as outside any transaction; {@code @LocalEffect} methods are refused inside a
 * transaction and never come here; a method that returns a stage runs off the caller's thread, outside
 * its transaction, and is not deferred.
 *
 * <p>Needs spring-tx: loaded only when it is on the class path. Stateless and thread-safe.
 */
final class OuterTransactionCompletion {

    private static final Logger LOG = LoggerFactory.getLogger(OuterTransactionCompletion.class);

    private OuterTransactionCompletion() { }

    /**
     * Whether {@code method}'s own {@code @Transactional}, read through {@code beans}' transaction attribute
     * sources as its transaction advice reads it, commits apart from a transaction already active.
     */
    static boolean commitsApart(Method method, Class<?> targetClass, BeanFactory beans) {
        List<TransactionAttributeSource> sources = beans == null ? List.of()
                : beans.getBeanProvider(TransactionAttributeSource.class).orderedStream().toList();
        for (TransactionAttributeSource source : sources.isEmpty()
                ? List.<TransactionAttributeSource>of(new AnnotationTransactionAttributeSource(false)) : sources) {
            TransactionAttribute declared = source.getTransactionAttribute(method, targetClass);
            if (declared != null) {
                int propagation = declared.getPropagationBehavior();
                return propagation == TransactionDefinition.PROPAGATION_REQUIRES_NEW
                        || propagation == TransactionDefinition.PROPAGATION_NOT_SUPPORTED;
            }
        }
        return false;
    }

    /** Whether the calling thread runs in a transaction whose completion can be followed. */
    static boolean active() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * The answer for {@code call} from a completion pending in the active transaction: an earlier call of
     * this transaction with the same namespace whose record waits for the commit. The same fingerprint
     * replays its result (the effect is this transaction's own, so it is there for the caller to see);
     * another fingerprint is a key reused ({@link IdempotencyKeyReuseException}). {@code null} when none is
     * pending, or its result was not stored (the coordinator then answers as for any call in flight).
     */
    static <T> IdempotentResult<T> pending(IdempotentCall call, ResultCodec<T> codec) {
        if (!call.hasKey() || !active()) {
            return null;
        }
        String namespace = call.namespace();
        for (TransactionSynchronization registered : TransactionSynchronizationManager.getSynchronizations()) {
            if (registered instanceof AfterOutcome pending && pending.namespace().equals(namespace)) {
                if (!pending.fingerprint().equals(call.fingerprint().hex())) {
                    throw new IdempotencyKeyReuseException(call.operation(), call.key(), pending.fingerprint(),
                            call.fingerprint().hex(), true);
                }
                String json = pending.result().json();
                return json == null ? null : new IdempotentResult<>(codec.decode(json), Outcome.REPLAYED);
            }
        }
        return null;
    }

    /** What the coordinator runs for a method whose record follows the active transaction, on {@code store}. */
    static UnaryOperator<ContextualAction<Object, Exception>> around(IdempotencyStore store, String method) {
        return action -> new Deferred(action, store, method);
    }

    /** The method as the key's holder, its completion deferred to the active transaction's outcome. */
    private record Deferred(ContextualAction<Object, Exception> action, IdempotencyStore store, String method)
            implements TransactionalAction<Object, Exception> {

        /** Without a reservation (no key, or failing open): nothing to complete, the method runs as it is. */
        @Override
        public Object run(IdempotencyContext context) throws Exception {
            return action.run(context);
        }

        @Override
        public LocalTransaction<Object, Exception> begin() {
            return new LocalTransaction<>() {
                @Override
                public Object run(IdempotencyContext context) throws Exception {
                    return action.run(context);
                }

                @Override
                public boolean complete(String namespace, String token, String fingerprint, StoredResult result,
                                        Duration ttl) {
                    TransactionSynchronizationManager.registerSynchronization(
                            new AfterOutcome(store, method, namespace, token, fingerprint, result, ttl));
                    return true;
                }

                @Override
                public void close() {
                    // Nothing of its own to close: the transaction is the caller's.
                }
            };
        }
    }

    /** Completes or releases the reservation once the transaction's outcome is known. */
    private record AfterOutcome(IdempotencyStore store, String method, String namespace, String token,
                                String fingerprint, StoredResult result, Duration ttl)
            implements TransactionSynchronization {

        @Override
        public void afterCompletion(int status) {
            try {
                if (status == STATUS_COMMITTED) {
                    if (!store.complete(namespace, token, fingerprint, result, ttl)) {
                        LOG.error("@Idempotent {}: its transaction committed after the key '{}' was taken over "
                                + "(the lease ran out before the commit); another attempt holds it, and the effect "
                                + "may have been made twice", method, namespace);
                    }
                } else if (status == STATUS_ROLLED_BACK) {
                    store.release(namespace, token);
                } else {
                    LOG.warn("@Idempotent {}: the outcome of its transaction is unknown, so the reservation of '{}' "
                            + "is left to expire with its lease; a retry then runs the method again", method,
                            namespace);
                }
            } catch (RuntimeException storeFailed) {
                LOG.error("@Idempotent {}: {} the reservation of '{}' after its transaction {} failed ({}); it "
                        + "expires with its lease, and a retry then runs the method again", method,
                        status == STATUS_COMMITTED ? "completing" : "releasing", namespace,
                        status == STATUS_COMMITTED ? "committed" : "rolled back", storeFailed.toString());
            }
        }
    }
}
