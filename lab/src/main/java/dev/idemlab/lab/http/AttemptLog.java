package dev.idemlab.lab.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every request a route got, as the server saw it: when it came, its Idempotency-Key field, and what it
 * was answered. It sits in front of the idempotency filter, so it sees what a client did (a real SDK's
 * own retries, say) without any help from the client. Thread-safe.
 */
public final class AttemptLog implements Filter {

    private static final Pattern CHARGE_ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    private static final Pattern ERROR_CODE = Pattern.compile("\"code\":\"([^\"]+)\"");

    private final List<Attempt> attempts = new ArrayList<>();
    private int running;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        long sentAt = System.nanoTime();
        synchronized (attempts) {
            running++;
        }
        Tee tee = new Tee((HttpServletResponse) response);
        try {
            chain.doFilter(request, tee);
        } finally {
            String body = tee.body();
            Matcher charge = CHARGE_ID.matcher(body);
            Matcher code = ERROR_CODE.matcher(body);
            Attempt attempt = new Attempt(sentAt, System.nanoTime(),
                    ((HttpServletRequest) request).getHeader("Idempotency-Key"), tee.getStatus(),
                    tee.getHeader("Idempotent-Replayed") != null, charge.find() ? charge.group(1) : null,
                    code.find() ? code.group(1) : null);
            synchronized (attempts) {
                attempts.add(attempt);
                running--;
                attempts.notifyAll();
            }
        }
    }

    /**
     * Waits until every request that arrived has been answered (also those whose client stopped waiting).
     *
     * @return whether none is left running within {@code timeout}
     */
    boolean awaitAnswered(java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (attempts) {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(attempts, left);
            }
            return true;
        }
    }

    /** The requests so far, in the order they were answered. */
    List<Attempt> attempts() {
        synchronized (attempts) {
            return List.copyOf(attempts);
        }
    }

    /**
     * One request.
     *
     * @param sentAt when it arrived, by {@link System#nanoTime()}
     * @param answeredAt when its answer was written
     * @param key its Idempotency-Key field as sent, or {@code null}
     * @param status the status it was answered
     * @param replayed whether the answer was marked a replay
     * @param chargeId the charge the answer named, or {@code null}
     * @param errorCode the error object's code, or {@code null}
     */
    public record Attempt(long sentAt, long answeredAt, String key, int status, boolean replayed, String chargeId,
                   String errorCode) {

        /** {@code 200 ch_1}, {@code 200 ch_1 (replayed)}, {@code 409 idempotency_key_in_use}. */
        public String answer() {
            return status + (chargeId != null ? " " + chargeId : errorCode != null ? " " + errorCode : "")
                    + (replayed ? " (replayed)" : "");
        }
    }

    /** Keeps a copy of what is written, for the log; {@code reset} starts the copy over with the response. */
    private static final class Tee extends HttpServletResponseWrapper {

        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();
        private ServletOutputStream out;

        Tee(HttpServletResponse response) {
            super(response);
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            if (out == null) {
                ServletOutputStream real = super.getOutputStream();
                out = new ServletOutputStream() {
                    @Override
                    public boolean isReady() {
                        return real.isReady();
                    }

                    @Override
                    public void setWriteListener(WriteListener listener) {
                        real.setWriteListener(listener);
                    }

                    @Override
                    public void write(int b) throws IOException {
                        copy.write(b);
                        real.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        copy.write(b, off, len);
                        real.write(b, off, len);
                    }

                    @Override
                    public void flush() throws IOException {
                        real.flush();
                    }
                };
            }
            return out;
        }

        @Override
        public void reset() {
            super.reset();
            copy.reset();
        }

        @Override
        public void resetBuffer() {
            super.resetBuffer();
            copy.reset();
        }

        String body() {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }
}
