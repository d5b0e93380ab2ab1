package dev.idemlab.idempotency.servlet;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The application behind the filter: every POST is a charge {@code ch_N} with a fresh N, answered 201
 * with the request body echoed, a Location and a per-response trace header that no replay repeats.
 * Tests script the next answer: a 5xx, a thrown error, or a hold on a latch.
 */
final class OrdersApp implements Application {

    final AtomicInteger charges = new AtomicInteger();
    private final AtomicReference<Integer> failNextWith = new AtomicReference<>();
    private final AtomicReference<Boolean> throwNext = new AtomicReference<>(false);
    private volatile CountDownLatch entered;
    private volatile CountDownLatch release;

    void failNextWith(int status) {
        failNextWith.set(status);
    }

    void throwNext() {
        throwNext.set(true);
    }

    /** The next charge counts {@code entered} down, then waits for {@code release}. */
    void holdNext(CountDownLatch entered, CountDownLatch release) {
        this.entered = entered;
        this.release = release;
    }

    @Override
    public Answer post(String path, byte[] requestBody, String downstreamKey) throws InterruptedException {
        String body = new String(requestBody, StandardCharsets.UTF_8);
        CountDownLatch hold = release;
        if (hold != null) {
            release = null;
            entered.countDown();
            hold.await(30, TimeUnit.SECONDS);
        }
        if (throwNext.getAndSet(false)) {
            throw new IllegalStateException("the application failed");
        }
        Integer status = failNextWith.getAndSet(null);
        if (status != null) {
            return Answer.text(status, "the application is down");
        }
        String id = "ch_" + charges.incrementAndGet();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", "/charges/" + id);
        headers.put("X-Trace", UUID.randomUUID().toString());
        return Answer.json(201, headers, "{\"id\":\"" + id + "\",\"path\":\"" + path
                + "\",\"request\":" + (body.isEmpty() ? "null" : body) + "}");
    }

    @Override
    public Answer get(String path) {
        return Answer.text(200, "charges=" + charges.get());
    }
}
