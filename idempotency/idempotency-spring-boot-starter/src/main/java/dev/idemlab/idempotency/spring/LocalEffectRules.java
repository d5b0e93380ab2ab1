package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.IdempotentMethod;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.util.StringUtils;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a {@link LocalEffect} method must be, checked when its bean's proxy is made, before any bean it
 * needs exists: a result it returns itself (not a stage, which would run off the
 * transaction's thread), and a {@code @Transactional} of its own, if any, that joins the advice's
 * transaction at its isolation. What needs beans (the store, the transaction manager, the one a
 * {@code @Transactional} names) is checked by {@link LocalEffectTransactions}; the classes, by
 * {@code IdempotentMethods} before it loads this class. Stateless.
 */
final class LocalEffectRules {

    /** Propagations that take part in the transaction already open: the advice's. */
    private static final Set<Integer> JOINING = Set.of(TransactionDefinition.PROPAGATION_REQUIRED,
            TransactionDefinition.PROPAGATION_SUPPORTS, TransactionDefinition.PROPAGATION_MANDATORY,
            TransactionDefinition.PROPAGATION_NESTED);

    private LocalEffectRules() { }

    /**
     * Checks {@code plan}'s method, called on {@code targetClass}, against every transaction attribute
     * source of {@code beans} (the ones {@code @EnableTransactionManagement} reads, which see
     * {@code @Transactional} on non-public methods too), or, without one, against the annotations as
     * Spring reads them by default. Call it only once the classes a local effect runs on were found
     * present: this class needs spring-tx.
     *
     * @param beans the application's bean factory, or {@code null} for an advisor made outside one
     * @return the transaction managers its {@code @Transactional} names ({@code transactionManager} or
     *     {@code value}), which must resolve to the one the advice's transaction runs on; empty if none
     * @throws IllegalArgumentException naming the method and the rule it breaks
     */
    static Set<String> check(IdempotentMethod plan, Class<?> targetClass, BeanFactory beans) {
        String where = "@LocalEffect " + IdempotentMethods.nameOf(plan.method());
        if (plan.async()) {
            throw new IllegalArgumentException(where + ": returns a stage; a local effect must return its result, "
                    + "since its transaction is bound to the calling thread and commits when the method returns");
        }
        Set<String> qualifiers = new LinkedHashSet<>();
        for (TransactionAttributeSource source : sources(beans)) {
            TransactionAttribute declared = source.getTransactionAttribute(plan.method(), targetClass);
            if (declared != null) {
                check(where, declared);
                if (StringUtils.hasText(declared.getQualifier())) {
                    qualifiers.add(declared.getQualifier());
                }
            }
        }
        return Set.copyOf(qualifiers);
    }

    /**
     * The application's own sources, so that the check reads {@code @Transactional} exactly as its
     * transaction advice will; without one, the annotations on methods of any visibility, as
     * {@code @EnableTransactionManagement} reads them.
     */
    private static List<TransactionAttributeSource> sources(BeanFactory beans) {
        List<TransactionAttributeSource> own = beans == null ? List.of()
                : beans.getBeanProvider(TransactionAttributeSource.class).orderedStream().toList();
        return own.isEmpty() ? List.of(new AnnotationTransactionAttributeSource(false)) : own;
    }

    private static void check(String where, TransactionAttribute declared) {
        if (!JOINING.contains(declared.getPropagationBehavior())) {
            throw new IllegalArgumentException(where + ": its @Transactional does not join the transaction the "
                    + "advice opens (propagation " + propagationOf(declared) + "), so its writes would commit apart "
                    + "from the record; use REQUIRED (the default) or drop it");
        }
        int isolation = declared.getIsolationLevel();
        if (isolation != TransactionDefinition.ISOLATION_DEFAULT
                && isolation != TransactionDefinition.ISOLATION_READ_COMMITTED) {
            throw new IllegalArgumentException(where + ": its @Transactional asks isolation " + isolationOf(isolation)
                    + ", but the advice's transaction runs at READ COMMITTED, which the method would join "
                    + "silently; under REPEATABLE READ or SERIALIZABLE the holder's own renewals, committed meanwhile, "
                    + "would fail the completion. Drop the isolation or set READ_COMMITTED");
        }
    }

    private static String isolationOf(int isolation) {
        return switch (isolation) {
            case TransactionDefinition.ISOLATION_READ_UNCOMMITTED -> "READ_UNCOMMITTED";
            case TransactionDefinition.ISOLATION_REPEATABLE_READ -> "REPEATABLE_READ";
            case TransactionDefinition.ISOLATION_SERIALIZABLE -> "SERIALIZABLE";
            default -> Integer.toString(isolation);
        };
    }

    private static String propagationOf(TransactionAttribute attribute) {
        return switch (attribute.getPropagationBehavior()) {
            case TransactionDefinition.PROPAGATION_REQUIRES_NEW -> "REQUIRES_NEW";
            case TransactionDefinition.PROPAGATION_NOT_SUPPORTED -> "NOT_SUPPORTED";
            case TransactionDefinition.PROPAGATION_NEVER -> "NEVER";
            default -> Integer.toString(attribute.getPropagationBehavior());
        };
    }
}
