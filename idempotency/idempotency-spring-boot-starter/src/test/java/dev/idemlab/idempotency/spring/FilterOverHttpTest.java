package dev.idemlab.idempotency.spring;

import dev.idemlab.idempotency.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter the starter registers, over real HTTP behind Spring Security: a retry is replayed and
 * charges once; another client's request under the same key is its own.
 */
@SpringBootTest(classes = FilterOverHttpTest.Api.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"idempotency.policy=raise",
                "idempotency.web.routes[0].operation=orders.create",
                "idempotency.web.routes[0].url-patterns=/orders",
                "idempotency.web.routes[0].documentation=https://api.example.com/docs/idempotency",
                "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                "spring.security.user.name=alice", "spring.security.user.password=secret"})
class FilterOverHttpTest {

    @LocalServerPort
    int port;
    @Autowired
    Ledger ledger;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aRetryIsReplayedAndTheLedgerHoldsOneCharge() throws Exception {
        String order = UUID.randomUUID().toString();
        HttpResponse<String> first = post("alice", "secret", "\"" + order + "\"", order);
        HttpResponse<String> retry = post("alice", "secret", "\"" + order + "\"", order);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)).hasValue("true");
        assertThat(ledger.chargesOf(order)).hasSize(1);
    }

    @Test
    void anUnauthenticatedRequestNeverReachesTheRoute() throws Exception {
        String order = UUID.randomUUID().toString();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Idempotency-Key", "\"" + order + "\"").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(order))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(ledger.chargesOf(order)).isEmpty();
    }

    private HttpResponse<String> post(String user, String password, String key, String order) throws Exception {
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Authorization", "Basic " + basic)
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body(order))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String body(String order) {
        return "{\"orderId\":\"" + order + "\",\"amount\":10}";
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(OrdersController.class)
    static class Api {

        @Bean
        Ledger ledger() {
            return new Ledger();
        }

        /** An API's usual chain: every request authenticated, HTTP Basic, no CSRF tokens (no browser session). */
        @Bean
        SecurityFilterChain api(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(csrf -> csrf.disable())
                    .build();
        }
    }

    @RestController
    static class OrdersController {

        private final Ledger ledger;

        OrdersController(Ledger ledger) {
            this.ledger = ledger;
        }

        @PostMapping("/orders")
        Charge create(@RequestBody ChargeRequest request, HttpServletRequest servletRequest) {
            String key = (String) servletRequest.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
            return new Charge(ledger.charge(request.orderId(), request.amount()), request.orderId(), request.amount(), key);
        }
    }
}
