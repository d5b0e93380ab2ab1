package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.InFlightPolicy;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The route's builder refuses a bad value with the rule it breaks. */
class IdempotentRouteTest {

    @Test
    void defaultsFollowTheDraft() {
        IdempotentRoute route = Routes.charge().build();
        assertThat(route.methods()).containsExactlyInAnyOrder("POST", "PATCH");
        assertThat(route.keyRequired()).isTrue();
        assertThat(route.waitingAllowed()).isFalse();
        assertThat(route.replayedHeaders()).containsExactly("Content-Type", "Location");
    }

    @Test
    void aWaitingCoordinatorNeedsTheOptIn() {
        assertThatThrownBy(() -> IdempotentRoute.custom("payment.charge",
                Routes.coordinator(new InMemoryIdempotencyStore(), InFlightPolicy.WAIT)).documentation(Routes.DOCS).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class)
                .hasMessageContaining("allowWaiting(true)");
    }

    @Test
    void aRequiredKeyNeedsDocumentation() {
        assertThatThrownBy(() -> IdempotentRoute.custom("payment.charge",
                Routes.coordinator(new InMemoryIdempotencyStore(), InFlightPolicy.RAISE)).build())
                .hasMessageContaining("needs its documentation URI");
    }

    @Test
    void otherRules() {
        assertThatThrownBy(() -> Routes.charge().documentation(URI.create("/relative")).build())
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> IdempotentRoute.custom("pay ment", Routes.coordinator(new InMemoryIdempotencyStore(),
                InFlightPolicy.RAISE)).documentation(Routes.DOCS).build()).hasMessageContaining("operation must match");
        assertThatThrownBy(() -> Routes.charge().maxBodyBytes(0).build()).hasMessageContaining("positive");
        assertThatThrownBy(() -> Routes.charge().replayedHeaders("bad header").build()).hasMessageContaining("field names");
        assertThatThrownBy(() -> Routes.charge().methods().build()).hasMessageContaining("at least one method");
    }
}
