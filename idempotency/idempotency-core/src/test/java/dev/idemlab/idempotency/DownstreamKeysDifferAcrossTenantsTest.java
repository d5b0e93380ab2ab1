package dev.idemlab.idempotency;

import dev.idemlab.idempotency.spi.ForwardingIdempotencyStore;
import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 39, defect 4: the downstream key was derived from {@code operation:key} alone, so two tenants
 * (two store key prefixes on one server, one provider account) that sent the same key handed the
 * provider the same key, and a provider that deduplicates refused or merged the second tenant's charge.
 * It is now derived from the record's name in the store, prefix included, and stays the same for every
 * retry, in any coordinator with the same configuration.
 */
class DownstreamKeysDifferAcrossTenantsTest {

    private static final Fingerprint FP = Fingerprint.ofFields(Map.of("amount", 10));
    /** Downstream keys as JSON strings; they are plain ASCII, so no escaping is needed (and no Jackson). */
    private static final ResultCodec<String> CODEC = new ResultCodec<>() {
        @Override
        public String encode(String result) {
            return '"' + result + '"';
        }

        @Override
        public String decode(String json) {
            return json.substring(1, json.length() - 1);
        }
    };

    /** A store under a key prefix, as a Redis or PostgreSQL store configured with one describes itself. */
    private static IdempotencyStore tenant(String prefix) {
        return new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public String keyPrefix() {
                return prefix;
            }
        };
    }

    private static String downstreamKeyOf(IdempotencyStore store, String key) {
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).build();
        return coordinator.execute(IdempotentCall.of("payment.charge", key, FP), CODEC, IdempotencyContext::downstreamKey);
    }

    @Test
    void twoKeyPrefixesSendingTheSameKeyGetDifferentDownstreamKeys() {
        String a = downstreamKeyOf(tenant("tenant-a:"), "0001");
        String b = downstreamKeyOf(tenant("tenant-b:"), "0001");
        assertThat(a).isNotEqualTo(b);
        assertThat(downstreamKeyOf(tenant(""), "0001")).isNotIn(a, b);
    }

    @Test
    void theKeyFollowsItsDocumentedRule() throws Exception {
        byte[] hash = MessageDigest.getInstance("SHA-256")
                .digest("tenant-a:{payment.charge:0001}".getBytes(StandardCharsets.UTF_8));
        assertThat(downstreamKeyOf(tenant("tenant-a:"), "0001"))
                .isEqualTo("idem_" + HexFormat.of().formatHex(hash, 0, 20));
    }

    @Test
    void aRetryAndAnotherProcessWithTheSamePrefixGetTheSameKey() {
        IdempotencyStore store = tenant("tenant-a:");
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(store).build();
        IdempotentCall call = IdempotentCall.of("payment.charge", "0001", FP);
        String[] first = new String[1];
        assertThatThrownBy(() -> coordinator.execute(call, CODEC, context -> {
            first[0] = context.downstreamKey();
            throw new IllegalStateException("the provider timed out");
        })).isInstanceOf(IllegalStateException.class);
        String retry = coordinator.execute(call, CODEC, IdempotencyContext::downstreamKey);
        assertThat(retry).isEqualTo(first[0]);
        assertThat(downstreamKeyOf(tenant("tenant-a:"), "0001")).as("a fresh coordinator and store, same prefix")
                .isEqualTo(retry);
    }
}
