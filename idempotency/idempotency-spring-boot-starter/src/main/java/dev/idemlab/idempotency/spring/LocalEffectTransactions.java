package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotentMethod;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.TransactionalAction;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Runs {@link LocalEffect} methods in a transaction of the application's
 * {@link PlatformTransactionManager} on the PostgreSQL store's {@code DataSource}, in which the key's
 * record is completed too (see {@link LocalEffect} for what that guarantees).
 *
 * <p>The rules that need beans are checked once every singleton exists, when any {@code @LocalEffect}
 * method was planned, so that a mistake fails startup naming the rule: the {@code IdempotencyStore} is
 * the PostgreSQL one, and the one transaction manager (or the primary) manages that store's
 * {@code DataSource}. A method planned later (a lazy bean) is checked on its first call. The store and
 * the transaction manager are looked up then, not when this is made, so that the advisor does not pull
 * them forward. Thread-safe.
 */
public final class LocalEffectTransactions implements SmartInitializingSingleton {

    /** What a local effect runs on, once checked. */
    record Binding(PlatformTransactionManager transactions, DataSource dataSource, LocalEffects effects,
                   String store) { }

    private final ObjectProvider<IdempotencyAdvisor> advisor;
    private final ObjectProvider<IdempotencyStore> store;
    private final ObjectProvider<PlatformTransactionManager> transactions;
    private volatile Binding binding;

    /** Local effects on the {@code store} bean, through the {@code transactions} bean. */
    public LocalEffectTransactions(ObjectProvider<IdempotencyAdvisor> advisor, ObjectProvider<IdempotencyStore> store,
                                   ObjectProvider<PlatformTransactionManager> transactions) {
        this.advisor = advisor;
        this.store = store;
        this.transactions = transactions;
    }

    /**
     * Checks the store and the transaction manager when any {@code @LocalEffect} method was planned.
     *
     * @throws IllegalStateException naming the methods and the rule they cannot run under
     */
    @Override
    public void afterSingletonsInstantiated() {
        IdempotencyAdvisor planner = advisor.getIfUnique();
        List<String> methods = planner == null ? List.of() : planner.localEffectMethods();
        if (!methods.isEmpty()) {
            binding(String.join(", ", methods));
        }
    }

    /**
     * Refuses a call of {@code method} made while a transaction is active on this thread (its caller's,
     * or a connection of the store's {@code DataSource} bound to it), before anything is reserved: the
     * record must commit with a transaction the advice opens and commits itself. Joining the caller's
     * would store a completion that the caller's rollback could still undo after the result was returned.
     *
     * @throws IllegalTransactionStateException naming the method and the rule
     */
    void refuseInsideTransaction(IdempotentMethod method) {
        Binding bound = binding(IdempotentMethods.nameOf(method.method()));
        if (TransactionSynchronizationManager.isActualTransactionActive()
                || TransactionSynchronizationManager.hasResource(bound.dataSource())) {
            throw new IllegalTransactionStateException("@LocalEffect " + IdempotentMethods.nameOf(method.method())
                    + " was called inside a transaction"
                    + nameOf(TransactionSynchronizationManager.getCurrentTransactionName())
                    + ": a local effect opens its own, in which its record is completed before it commits, and "
                    + "cannot join its caller's (a rollback there would undo a completion already answered); call it "
                    + "outside any transaction, or from a method that is not @Transactional");
        }
    }

    /**
     * What the coordinator runs for one call of {@code method}: its action, in a transaction of the
     * transaction manager that the holder's completion commits; without a reservation (no key, or a
     * coordinator failing open) in one committed on its own, as a plain {@code @Transactional} would.
     */
    UnaryOperator<ContextualAction<Object, Exception>> around(IdempotentMethod method) {
        Binding bound = binding(IdempotentMethods.nameOf(method.method()));
        String name = "@LocalEffect " + IdempotentMethods.nameOf(method.method());
        return action -> new TransactionalAction<>() {
            @Override
            public LocalTransaction<Object, Exception> begin() {
                return SpringEffectTransaction.begin(bound, name, action);
            }

            @Override
            public Object run(IdempotencyContext context) throws Exception {
                try (SpringEffectTransaction transaction = SpringEffectTransaction.begin(bound, name, action)) {
                    Object value = transaction.run(context);
                    transaction.commitAlone();
                    return value;
                }
            }
        };
    }

    private Binding binding(String methods) {
        Binding known = binding;
        if (known == null) {
            known = bind(methods);
            binding = known;
        }
        return known;
    }

    private Binding bind(String methods) {
        String where = "@LocalEffect " + methods;
        IdempotencyStore chosen = store.getIfUnique();
        if (!(chosen instanceof PostgresIdempotencyStore postgres)) {
            throw new IllegalStateException(where + ": a local effect needs idempotency.store=postgres (a "
                    + "PostgresIdempotencyStore bean): its record is completed in the method's transaction, on the "
                    + "store's database; the store here is "
                    + (chosen == null ? "none, or more than one" : chosen.getClass().getName()));
        }
        PlatformTransactionManager manager = transactions.getIfUnique();
        if (manager == null) {
            throw new IllegalStateException(where + ": a local effect needs one PlatformTransactionManager bean (or "
                    + "a primary one) on the store's DataSource; there is none, or more than one");
        }
        LocalEffects effects = LocalEffects.of(postgres);
        Object managed = manager instanceof ResourceTransactionManager resources
                ? resources.getResourceFactory() : null;
        if (managed != effects.dataSource()) {
            throw new IllegalStateException(where + ": the transaction manager (" + manager.getClass().getName()
                    + ") must manage the DataSource the PostgreSQL store runs on, so that the method's writes and the "
                    + "completion of its record share one connection and one commit; it manages " + managed
                    + ", the store runs on " + effects.dataSource());
        }
        return new Binding(manager, effects.dataSource(), effects, chosen.describe().name());
    }

    private static String nameOf(String transaction) {
        return transaction == null ? "" : " (" + transaction + ")";
    }
}
