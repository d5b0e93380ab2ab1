package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.ContextualAction;
import dev.idemlab.idempotency.IdempotencyContext;
import dev.idemlab.idempotency.IdempotencyStoreUnavailableException;
import dev.idemlab.idempotency.IdempotentMethod;
import dev.idemlab.idempotency.StorePhase;
import dev.idemlab.idempotency.spi.IdempotencyStoreException;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.spi.LocalTransaction;
import dev.idemlab.idempotency.spi.TransactionalAction;
import dev.idemlab.idempotency.store.postgres.LocalEffects;
import dev.idemlab.idempotency.store.postgres.PostgresIdempotencyStore;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Runs {@link LocalEffect} methods in a transaction of the application's
 * {@link PlatformTransactionManager} on the PostgreSQL store's {@code DataSource}, in which the key's
 * record is completed too (see {@link LocalEffect} for what that guarantees).
 *
 * <p>The rules that need beans are checked once every singleton exists, when any {@code @LocalEffect}
 * method was planned, so that a mistake fails startup naming the rule: the {@code IdempotencyStore} is
 * the PostgreSQL one, the one transaction manager (or the primary) manages that store's
 * {@code DataSource} and keeps transaction synchronization on, and a transaction manager that a method's
 * {@code @Transactional} names ({@code transactionManager} or {@code value}) is that same one. A method
 * planned later (a lazy bean) is checked on its first call. The store and
 * the transaction manager are looked up then, not when this is made, so that the advisor does not pull
 * them forward. Thread-safe.
 */
public final class LocalEffectTransactions implements SmartInitializingSingleton, BeanFactoryAware {

    /** What a local effect runs on, once checked. */
    record Binding(PlatformTransactionManager transactions, DataSource dataSource, LocalEffects effects,
                   String store) { }

    private final ObjectProvider<IdempotencyAdvisor> advisor;
    private final ObjectProvider<IdempotencyStore> store;
    private final ObjectProvider<PlatformTransactionManager> transactions;
    private final Set<Method> checked = ConcurrentHashMap.newKeySet();
    private volatile Binding binding;
    private volatile BeanFactory beans;

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
            planner.localEffectPlans().forEach(this::checked);
        }
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beans = beanFactory;
    }

    /**
     * What {@code method} runs on, once checked: the store and the transaction manager, and that any
     * transaction manager its {@code @Transactional} names is the one the advice's transaction runs on.
     * A {@code @Transactional("other")} would have the transaction advice open its own transaction on
     * that manager, whose writes commit apart from the record.
     *
     * @throws IllegalStateException naming the method and the rule it breaks
     */
    Binding checked(IdempotentMethods.Advised method) {
        String name = IdempotentMethods.nameOf(method.plan().method());
        Binding bound = binding(name);
        if (checked.contains(method.plan().method())) {
            return bound;
        }
        for (String qualifier : method.transactionManagers()) {
            Object named = named(qualifier);
            if (named != bound.transactions()) {
                throw new IllegalStateException("@LocalEffect " + name + ": its @Transactional names the transaction "
                        + "manager '" + qualifier + "', which is " + (named == null ? "no bean here" : named.getClass()
                        .getName() + ", not the one the advice's transaction runs on") + "; its writes would commit "
                        + "apart from the record. Name the transaction manager of the store's DataSource ("
                        + bound.transactions().getClass().getName() + "), or none");
            }
        }
        checked.add(method.plan().method());
        return bound;
    }

    /** The transaction manager {@code qualifier} names, as the transaction advice resolves it; null if none. */
    private Object named(String qualifier) {
        BeanFactory factory = beans;
        if (factory == null) {
            return null;
        }
        try {
            return BeanFactoryAnnotationUtils.qualifiedBeanOfType(factory, TransactionManager.class, qualifier);
        } catch (BeansException none) {
            return null;
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
    void refuseInsideTransaction(IdempotentMethods.Advised advised) {
        IdempotentMethod method = advised.plan();
        Binding bound = checked(advised);
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
     * That one ends as the holder's does: a transaction that could not begin, or a commit whose outcome
     * is unknown, is {@link IdempotencyStoreUnavailableException}; a commit that rolled back rethrows its
     * error unchanged.
     */
    UnaryOperator<ContextualAction<Object, Exception>> around(IdempotentMethods.Advised advised) {
        IdempotentMethod method = advised.plan();
        Binding bound = checked(advised);
        String name = "@LocalEffect " + IdempotentMethods.nameOf(method.method());
        return action -> new TransactionalAction<>() {
            @Override
            public LocalTransaction<Object, Exception> begin() {
                return SpringEffectTransaction.begin(bound, name, action);
            }

            @Override
            public Object run(IdempotencyContext context) throws Exception {
                String key = context == null ? null : context.key();
                SpringEffectTransaction transaction;
                try {
                    transaction = SpringEffectTransaction.begin(bound, name, action);
                } catch (IdempotencyStoreException cannotBegin) {
                    throw unavailable(method, key, bound, "could not open its transaction; nothing ran", cannotBegin);
                }
                try (transaction) {
                    Object value = transaction.run(context);
                    try {
                        transaction.commitAlone();
                    } catch (IdempotencyStoreException unknown) {
                        throw unavailable(method, key, bound, "committed its effect without a record, and whether "
                                + "the commit landed is unknown", unknown);
                    }
                    return value;
                }
            }
        };
    }

    private static IdempotencyStoreUnavailableException unavailable(IdempotentMethod method, String key, Binding bound,
                                                                    String consequence,
                                                                    IdempotencyStoreException error) {
        return new IdempotencyStoreUnavailableException(method.operation(), key, bound.store(), StorePhase.COMPLETE,
                "the local effect, run without a reservation, " + consequence, error);
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
        return bind("@LocalEffect " + methods, LOCAL_EFFECT, store.getIfUnique(), transactions.getIfUnique());
    }

    /**
     * What a user of local transactions is, for the rules' messages: how it is named, what it writes on
     * the store's database, and what must share one connection and one commit.
     */
    record Subject(String what, String writes, String shared) { }

    static final Subject LOCAL_EFFECT = new Subject("a local effect",
            "its record is completed in the method's transaction, on the store's database",
            "the method's writes and the completion of its record");

    /**
     * The rules every user of the transaction manager's transactions on the store's database follows
     * ({@link LocalEffect} methods, {@link IdempotentWorkflows}): the store is the PostgreSQL one, one
     * transaction manager (or the primary) manages its {@code DataSource}, with synchronization on.
     *
     * @param where how the failure names the user ({@code @LocalEffect Orders.place})
     * @throws IllegalStateException naming {@code where} and the rule it breaks
     */
    static Binding bind(String where, Subject subject, IdempotencyStore chosen, PlatformTransactionManager manager) {
        if (!(chosen instanceof PostgresIdempotencyStore postgres)) {
            throw new IllegalStateException(where + ": " + subject.what() + " needs idempotency.store=postgres (a "
                    + "PostgresIdempotencyStore bean): " + subject.writes() + "; the store here is "
                    + (chosen == null ? "none, or more than one" : chosen.getClass().getName()));
        }
        if (manager == null) {
            throw new IllegalStateException(where + ": " + subject.what() + " needs one PlatformTransactionManager "
                    + "bean (or a primary one) on the store's DataSource; there is none, or more than one");
        }
        if (manager instanceof AbstractPlatformTransactionManager synchronizing && synchronizing
                .getTransactionSynchronization() == AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER) {
            throw new IllegalStateException(where + ": the transaction manager (" + manager.getClass().getName()
                    + ") has transaction synchronization off (SYNCHRONIZATION_NEVER); " + subject.what() + " reads "
                    + "how its commit ended from a synchronization, to tell a commit that landed from one that rolled "
                    + "back");
        }
        LocalEffects effects = LocalEffects.of(postgres);
        Object managed = manager instanceof ResourceTransactionManager resources
                ? resources.getResourceFactory() : null;
        if (managed != effects.dataSource()) {
            throw new IllegalStateException(where + ": the transaction manager (" + manager.getClass().getName()
                    + ") must manage the DataSource the PostgreSQL store runs on, so that " + subject.shared()
                    + " share one connection and one commit; it manages " + managed + ", the store runs on "
                    + effects.dataSource());
        }
        return new Binding(manager, effects.dataSource(), effects, chosen.describe().name());
    }

    static String nameOf(String transaction) {
        return transaction == null ? "" : " (" + transaction + ")";
    }
}
