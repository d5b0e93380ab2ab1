package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.Idempotent;
import dev.idemlab.idempotency.IdempotencyKey;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The advisor's conditions, its order, where it finds the annotation, and what it refuses at startup. */
class IdempotentAdviceTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class));

    @Test
    void theDefaultOrderRunsOutsideTheTransactionAdvisorsDefault() {
        runner.run(context -> {
            int order = context.getBean(IdempotencyAdvisor.class).getOrder();
            assertThat(order).isEqualTo(IdempotencyAdvisor.DEFAULT_ORDER).isLessThan(Ordered.LOWEST_PRECEDENCE);
        });
    }

    @Test
    void theOrderIsAProperty() {
        runner.withPropertyValues("idempotency.aspect.order=42")
                .run(context -> assertThat(context.getBean(IdempotencyAdvisor.class).getOrder()).isEqualTo(42));
    }

    @Test
    void anAnnotationOnTheInterfaceMethodMakesTheBeansMethodIdempotent() {
        runner.withBean(Counter.class, Counter::new).run(context -> {
            Counter counter = context.getBean(Counter.class);
            assertThat(AopUtils.isAopProxy(counter)).isTrue();
            assertThat(counter.next("k1")).isEqualTo(counter.next("k1"));
            assertThat(counter.next("k2")).isEqualTo(2);
        });
    }

    @Test
    void withTheAspectDisabledNothingIsAdvised() {
        runner.withPropertyValues("idempotency.aspect.enabled=false").withBean(Counter.class, Counter::new)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(IdempotencyAdvisor.class);
                    Counter counter = context.getBean(Counter.class);
                    assertThat(counter.next("k1")).isNotEqualTo(counter.next("k1"));
                });
    }

    @Test
    void aMethodWithoutAKeyParameterFailsStartupNamingTheMethodAndTheRule() {
        runner.withBean(Keyless.class, Keyless::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Keyless.charge")
                    .hasMessageContaining("no parameter carries @IdempotencyKey");
        });
    }

    @Test
    void aFingerprintPathTheParameterLacksFailsStartupNamingIt() {
        runner.withBean(WrongPath.class, WrongPath::new).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreAutoConfigurationTest.rootCause(context.getStartupFailure()))
                    .hasMessageContaining("request.order_id");
        });
    }

    /** An interface that carries the annotation. */
    public interface Sequence {
        @Idempotent(operation = "sequence.next")
        int next(@IdempotencyKey String key);
    }

    /** Counts its calls: an idempotent call under a known key answers what the first one did. */
    public static class Counter implements Sequence {
        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public int next(String key) {
            return calls.incrementAndGet();
        }
    }

    /** An annotated method with no key. */
    public static class Keyless {
        @Idempotent(operation = "payment.charge")
        public Charge charge(ChargeRequest request) {
            return new Charge("ch_1", request.orderId(), request.amount(), null);
        }
    }

    /** A fingerprint that names a record component the request does not have. */
    public static class WrongPath {
        @Idempotent(operation = "payment.charge", fingerprint = "request.order_id")
        public Charge charge(@IdempotencyKey String key, ChargeRequest request) {
            return new Charge("ch_1", request.orderId(), request.amount(), null);
        }
    }
}
