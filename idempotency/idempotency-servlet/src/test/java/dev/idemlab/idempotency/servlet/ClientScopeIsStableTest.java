package dev.idemlab.idempotency.servlet;

import dev.idemlab.idempotency.servlet.internal.ClientScope;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's scope is where its records live, so it must never change between releases, nor between
 * threads: the digest the filter clones per request gives the same scope as a digest looked up afresh,
 * also from many threads at once.
 */
class ClientScopeIsStableTest {

    @Test
    void theScopeIsTheFirst32HexOfTheClientsSha256() throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest("client-a".getBytes(StandardCharsets.UTF_8));

        assertThat(ClientScope.operation("payment.charge", "client-a"))
                .isEqualTo("payment.charge.c-" + HexFormat.of().formatHex(digest, 0, 16));
    }

    @Test
    void manyThreadsGetEachClientsOwnScope() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> checks = IntStream.range(0, 2000).mapToObj(i -> threads.submit(() -> {
                String client = "client-" + (i % 17);
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(client.getBytes(StandardCharsets.UTF_8));
                return ClientScope.operation("op", client).equals("op.c-" + HexFormat.of().formatHex(digest, 0, 16));
            })).toList();
            for (Future<Boolean> check : checks) {
                assertThat(check.get()).isTrue();
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
