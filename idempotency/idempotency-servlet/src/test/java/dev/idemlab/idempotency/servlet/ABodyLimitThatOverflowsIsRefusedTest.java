package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 5, at the filter: {@code maxBodyBytes(Integer.MAX_VALUE)} was accepted, and every
 * guarded request then failed, since the filter reads one byte past the limit to tell an oversized body
 * ({@code IllegalArgumentException: len < 0}). A limit above {@link IdempotentRoute#MAX_BODY_BYTES} is now
 * refused when the route is built, and the largest one accepted serves requests.
 */
class ABodyLimitThatOverflowsIsRefusedTest {

    @Test
    void aLimitOfIntegerMaxValueIsRefusedNamingTheRule() {
        assertThatThrownBy(() -> Routes.charge().maxBodyBytes(Integer.MAX_VALUE).build())
                .isInstanceOfSatisfying(InvalidIdempotencyConfigException.class, e -> {
                    assertThat(e.setting()).isEqualTo("maxBodyBytes");
                    assertThat(e.rule()).contains("at most " + IdempotentRoute.MAX_BODY_BYTES + " (1 GiB)");
                });
        assertThatThrownBy(() -> Routes.charge().maxBodyBytes(IdempotentRoute.MAX_BODY_BYTES + 1).build())
                .isInstanceOf(InvalidIdempotencyConfigException.class);
    }

    @Test
    void theLargestLimitAcceptedServesRequests() throws Exception {
        OrdersApp app = new OrdersApp();
        try (FilterServer server = FilterServer.start(
                Routes.charge().maxBodyBytes(IdempotentRoute.MAX_BODY_BYTES).build(), app)) {
            HttpResponse<byte[]> answer = server.post("/orders/o-1/charge", "k1", "{\"amount\":10}");
            assertThat(answer.statusCode()).isEqualTo(201);
            assertThat(app.charges.get()).isEqualTo(1);
        }
    }
}
