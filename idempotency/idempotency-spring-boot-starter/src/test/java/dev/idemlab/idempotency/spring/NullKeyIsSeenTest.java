package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotency;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import dev.idemlab.idempotency.Outcome;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 7c: a {@code null} {@code @IdempotencyKey} ran the method unguarded with nothing
 * logged. Now the first such call of each method logs a WARN naming it, every one is counted as
 * {@code BYPASSED}, and {@code @Idempotent(nullKey = REFUSE)} refuses it with a 400 before anything
 * runs: through the starter's advice and through {@code Idempotency.proxy} alike, since both run
 * {@code IdempotentMethod}.
 */
@ExtendWith(OutputCaptureExtension.class)
class NullKeyIsSeenTest {

    private static final String WARNING = "was called with a null @IdempotencyKey";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class))
            .withBean(Refunds.class, Refunds::new);

    @Test
    void theAdviceLogsTheFirstNullKeyOfEachMethodNamingItAndCountsEveryOneAsBypassed(CapturedOutput output) {
        runner.run(context -> {
            Refunds refunds = context.getBean(Refunds.class);
            refunds.refund(null, 10);
            refunds.refund(null, 10);
            refunds.refund(null, 10);

            assertThat(refunds.runs()).isEqualTo(3);
            assertThat(context.getBean(IdempotencyCoordinator.class).stats().count(Outcome.BYPASSED)).isEqualTo(3);
            assertThat(output.getOut().split(WARNING, -1)).as("one WARN for three calls").hasSize(2);
            assertThat(output.getOut()).contains("WARN").contains("Refunds.refund").contains("BYPASSED");
        });
    }

    @Test
    void theAdviceRefusesANullKeyWhenTheMethodSaysRefuse() {
        runner.run(context -> {
            Refunds refunds = context.getBean(Refunds.class);
            assertThatThrownBy(() -> refunds.refundWithKey(null, 10))
                    .isInstanceOf(InvalidIdempotencyKeyException.class)
                    .hasMessageContaining("Refunds.refundWithKey").hasMessageContaining("nullKey = REFUSE")
                    .satisfies(e -> assertThat(((InvalidIdempotencyKeyException) e).httpStatus()).isEqualTo(400));
            assertThat(refunds.runs()).isZero();
        });
    }

    @Test
    void theProxyLogsAndCountsTheSame(CapturedOutput output) {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        Refunding refunds = Idempotency.proxy(Refunding.class, new Refunds(), coordinator);
        refunds.refund(null, 10);
        refunds.refund(null, 10);

        assertThat(coordinator.stats().count(Outcome.BYPASSED)).isEqualTo(2);
        assertThat(output.getOut().split(WARNING, -1)).hasSize(2);
        assertThat(output.getOut()).contains("Refunding.refund");
    }

    /** Refunds through an interface, for the proxy. */
    public interface Refunding {
        @Idempotent(operation = "refund.create")
        int refund(@IdempotencyKey String key, long amount);
    }

    /** Counts its runs. */
    public static class Refunds implements Refunding {

        private final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(operation = "refund.create")
        public int refund(@IdempotencyKey String key, long amount) {
            return runs.incrementAndGet();
        }

        @Idempotent(operation = "refund.required", nullKey = Idempotent.NullKey.REFUSE)
        public int refundWithKey(@IdempotencyKey String key, long amount) {
            return runs.incrementAndGet();
        }

        public int runs() {
            return runs.get();
        }
    }
}
