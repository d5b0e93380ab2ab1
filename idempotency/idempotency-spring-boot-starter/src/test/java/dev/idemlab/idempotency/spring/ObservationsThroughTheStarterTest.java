package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.spring.IdempotentAdviceTest.Counter;
import dev.idemlab.idempotency.spring.IdempotentAdviceTest.Sequence;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyAspectAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyCoordinatorAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyObservationAutoConfiguration;
import dev.idemlab.idempotency.spring.autoconfigure.IdempotencyStoreAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With an {@link ObservationRegistry} in the context, an {@code @Idempotent} method's calls are
 * observed, phase by phase, through the starter's coordinator; without one, the starter registers
 * nothing for it.
 */
class ObservationsThroughTheStarterTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
                    IdempotencyCoordinatorAutoConfiguration.class, IdempotencyAspectAutoConfiguration.class,
                    IdempotencyObservationAutoConfiguration.class))
            .withBean(Counter.class, Counter::new);

    @Test
    void anIdempotentMethodsCallsAreObservedWithTheirPhasesAndTags() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            Sequence sequence = context.getBean(Sequence.class);
            int first = sequence.next("k-observed-1");

            assertThat(sequence.next("k-observed-1")).isEqualTo(first);
            TestObservationRegistryAssert.assertThat(registry)
                    .doesNotHaveAnyRemainingCurrentObservation()
                    .hasNumberOfObservationsWithNameEqualTo("idempotency.call", 2)
                    .forAllObservationsWithNameEqualTo("idempotency.call", call -> call
                            .hasLowCardinalityKeyValue("operation", "sequence.next")
                            .hasLowCardinalityKeyValue("store", "memory"))
                    .hasAnObservation(call -> call.hasNameEqualTo("idempotency.call")
                            .hasLowCardinalityKeyValue("outcome", "executed"))
                    .hasAnObservation(call -> call.hasNameEqualTo("idempotency.call")
                            .hasLowCardinalityKeyValue("outcome", "replayed"))
                    .hasNumberOfObservationsWithNameEqualTo("idempotency.reserve", 2)
                    .hasObservationWithNameEqualTo("idempotency.action").that()
                    .hasLowCardinalityKeyValue("outcome", "ok")
                    .hasParentObservationContextMatching(parent -> parent.getName().equals("idempotency.call"));
            TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("idempotency.complete").that()
                    .hasLowCardinalityKeyValue("outcome", "stored")
                    .doesNotHaveHighCardinalityKeyValueWithKey("key");
            TestObservationRegistryAssert.assertThat(registry).hasHandledContextsThatSatisfy(contexts ->
                    assertThat(contexts).allSatisfy(each -> assertThat(each.getAllKeyValues())
                            .noneMatch(tag -> tag.getValue().contains("k-observed-1"))));
        });
    }

    @Test
    void withoutAnObservationRegistryNothingIsRegistered() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyObservations")
                    .doesNotHaveBean(ObservationRegistry.class);
            Sequence sequence = context.getBean(Sequence.class);
            assertThat(sequence.next("k1")).isEqualTo(sequence.next("k1"));
        });
    }

    @Test
    void withARegistryTheCustomizerIsRegistered() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .run(context -> assertThat(context).hasBean("idempotencyObservations"));
    }
}
