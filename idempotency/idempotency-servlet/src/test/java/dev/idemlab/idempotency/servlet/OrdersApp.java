package dev.idemlab.idempotency.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
final class OrdersApp extends HttpServlet {

    private static final long serialVersionUID = 1L;

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
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        CountDownLatch hold = release;
        if (hold != null) {
            release = null;
            entered.countDown();
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (throwNext.getAndSet(false)) {
            throw new IllegalStateException("the application failed");
        }
        Integer status = failNextWith.getAndSet(null);
        if (status != null) {
            response.setStatus(status);
            response.setContentType("text/plain");
            response.getWriter().write("the application is down");
            return;
        }
        String id = "ch_" + charges.incrementAndGet();
        response.setStatus(201);
        response.setContentType("application/json");
        response.setHeader("Location", "/charges/" + id);
        response.setHeader("X-Trace", UUID.randomUUID().toString());
        response.getOutputStream().write(("{\"id\":\"" + id + "\",\"path\":\"" + request.getRequestURI()
                + "\",\"request\":" + (body.isEmpty() ? "null" : body) + "}").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        response.getWriter().write("charges=" + charges.get());
    }
}
