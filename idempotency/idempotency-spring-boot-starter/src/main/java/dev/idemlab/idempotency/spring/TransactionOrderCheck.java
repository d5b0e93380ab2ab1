package dev.idemlab.idempotency.spring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;

import java.util.Optional;

/**
 * Warns at startup when the {@code @Idempotent} advice would run inside {@code @Transactional}: its
 * order is not smaller than the transaction advisor's. A method whose transaction joins the one the
 * advice finds active has its record completed after that transaction commits
 * ({@link OuterTransactionCompletion}), but the reservation is then taken inside the transaction, and a
 * method whose {@code @Transactional} starts a transaction of its own ({@code REQUIRES_NEW}) has its
 * result stored before that transaction commits: a commit that fails leaves a completed record that
 * retries replay (see {@link IdempotencyAdvisor}). A warning rather than a failure: a method that is
 * idempotent but not transactional is unaffected, and an application may order them so on purpose.
 *
 * <p>Thread-safe; runs once, after every singleton was made.
 */
public final class TransactionOrderCheck implements SmartInitializingSingleton {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionOrderCheck.class);

    private final ObjectProvider<IdempotencyAdvisor> idempotency;
    private final ObjectProvider<BeanFactoryTransactionAttributeSourceAdvisor> transactions;
    private volatile String warning;

    /** A check of {@code idempotency}'s order against every transaction advisor's. */
    public TransactionOrderCheck(ObjectProvider<IdempotencyAdvisor> idempotency,
                                 ObjectProvider<BeanFactoryTransactionAttributeSourceAdvisor> transactions) {
        this.idempotency = idempotency;
        this.transactions = transactions;
    }

    @Override
    public void afterSingletonsInstantiated() {
        IdempotencyAdvisor advisor = idempotency.getIfUnique();
        if (advisor == null) {
            return;
        }
        transactions.orderedStream()
                .filter(transaction -> transaction.getOrder() <= advisor.getOrder())
                .findFirst()
                .ifPresent(transaction -> {
                    warning = "idempotency.aspect.order (" + advisor.getOrder() + ") is not ahead of the transaction "
                            + "advisor's order (" + transaction.getOrder() + "): @Idempotent runs inside @Transactional, "
                            + "so the result of a method whose @Transactional starts a transaction of its own "
                            + "(REQUIRES_NEW) is stored before that transaction commits, and a commit that fails leaves "
                            + "a completed record that retries replay; give idempotency.aspect.order a smaller value";
                    LOG.warn(warning);
                });
    }

    /** The warning this check logged, if it logged one. */
    public Optional<String> warning() {
        return Optional.ofNullable(warning);
    }
}
