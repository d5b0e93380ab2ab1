package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.store.postgres.IfOutcomeUnknown;
import dev.idemlab.idempotency.store.postgres.Workflow;
import dev.idemlab.provider.Charge;
import dev.idemlab.provider.ChargeRequest;
import dev.idemlab.provider.PaymentProvider;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.Map;

/**
 * A service's order placement as a workflow run through {@link IdempotentWorkflows}, written as a service
 * team would write it on the starter: {@code order_created} (a row, inserted with the application's
 * {@code JdbcTemplate}), {@code charge_created} (a provider, called with the step's downstream key),
 * {@code order_paid} (the row again), {@code receipt_sent} (a mailer, with its step's key). After each
 * step, and inside the charge step once the provider answered, it calls its {@link StepHook}: where the
 * crash-point tests kill its holder. Thread-safe.
 */
final class Checkout {

    static final String OPERATION = "checkout.place";
    static final String TABLE = "checkout_orders";
    static final long AMOUNT = 1250;
    /** The longest a charge may take at either provider: the ask-first step waits this past the lease. */
    static final Duration PROVIDER_DEADLINE = Duration.ofSeconds(3);
    /** Where, inside the charge step, the provider has answered and the step's recovery point is not in. */
    static final String CHARGE_ANSWERED = "charge_answered";

    /** How the charge step is protected when a retry finds its outcome unknown. */
    enum Charging {
        /** At the provider that deduplicates on the downstream key: the default policy, re-run with the key. */
        DEDUPLICATED,
        /** At the provider that does not deduplicate: ask it by the downstream key first. */
        ASKING_FIRST,
        /** At the provider that does not deduplicate: stop at the unknown outcome. */
        STOPPING
    }

    /** Called at each point a holder may be killed; a no-op but in the holder of a crash-point test. */
    @FunctionalInterface
    interface StepHook {
        void at(String point);
    }

    private final IdempotentWorkflows workflows;
    private final JdbcTemplate jdbc;
    private final PaymentProvider payments;
    private final PaymentProvider legacyPayments;
    private final PaymentProvider mailer;
    private final StepHook hook;

    /**
     * @param payments a provider that deduplicates on the idempotency key it is passed
     * @param legacyPayments a provider that does not, but can be asked for the charges made under a key
     */
    Checkout(IdempotentWorkflows workflows, JdbcTemplate jdbc, PaymentProvider payments,
             PaymentProvider legacyPayments, PaymentProvider mailer, StepHook hook) {
        this.workflows = workflows;
        this.jdbc = jdbc;
        this.payments = payments;
        this.legacyPayments = legacyPayments;
        this.mailer = mailer;
        this.hook = hook;
    }

    /** Places order {@code orderRef} under {@code key}; returns each step's output. */
    Workflow.Progress place(String key, String orderRef, Charging charging) throws Exception {
        return workflows.run(OPERATION, key, Map.of("order", orderRef, "amount", AMOUNT), workflow(orderRef, charging));
    }

    private Workflow workflow(String orderRef, Charging charging) {
        PaymentProvider provider = charging == Charging.DEDUPLICATED ? payments : legacyPayments;
        Workflow.RemoteStep charge = (progress, key, context) -> {
            hook.at("order_created");
            String id = provider.charge(new ChargeRequest(orderRef, AMOUNT, key, null)).id();
            hook.at(CHARGE_ANSWERED);
            return id;
        };
        Workflow.Builder steps = Workflow.builder().local("order_created", (connection, progress, context) ->
                Long.toString(jdbc.queryForObject("insert into " + TABLE + " (order_ref, amount, status) values (?, ?, "
                        + "'created') returning id", Long.class, orderRef, AMOUNT)));
        switch (charging) {
            case DEDUPLICATED -> steps.remote("charge_created", charge);
            case ASKING_FIRST -> steps.remoteAskingFirst("charge_created", (progress, key, context) ->
                    provider.chargesWithKey(key).stream().findFirst().map(Charge::id), PROVIDER_DEADLINE, charge);
            case STOPPING -> steps.remote("charge_created", IfOutcomeUnknown.STOP, PROVIDER_DEADLINE, charge);
        }
        return steps
                .local("order_paid", (connection, progress, context) -> {
                    hook.at("charge_created");
                    jdbc.update("update " + TABLE + " set status = 'paid', charge_id = ? where id = ?",
                            progress.output("charge_created"), Long.parseLong(progress.output("order_created")));
                    return progress.output("order_created");
                })
                .remote("receipt_sent", (progress, key, context) -> {
                    hook.at("order_paid");
                    return mailer.charge(new ChargeRequest(orderRef, 1, key, null)).id();
                })
                .build();
    }
}
