package dev.idemlab.lab.nemesis;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The clients that send the workload over HTTP, and where each one's requests sit in the history. Every
 * client sends every request with the same key ({@code load-7}) for its own order (its order 7), on
 * purpose: the filter must keep them apart. The history files client {@code c}'s copy of request
 * {@code r} under key {@code r + c * STRIDE}, so that the checker's rules per key are rules per client
 * and key; the stride is a multiple of the load's amount cycle, so every client's copy asks the same
 * amount, and the requests are alike but for the client. Immutable.
 *
 * @param names each client's name in the history: its bearer token, or {@link #TOKENLESS}
 * @param tokenless the index of the client that sends no bearer token, or -1
 */
record HttpClients(List<String> names, int tokenless) {

    /** The history's name of the client that sends no bearer token. */
    static final String TOKENLESS = "(anonymous)";
    /** How far apart two clients' keys sit in the history: 100 of the load's amount cycles of 9,900. */
    static final int STRIDE = 990_000;

    HttpClients {
        names = List.copyOf(names);
    }

    /** The three clients of {@code mode}. */
    static HttpClients of(Clients mode) {
        return switch (mode) {
            case BEARER -> new HttpClients(List.of("client-a", "client-b", "client-c"), -1);
            case ANONYMOUS -> new HttpClients(List.of("client-a", "client-b", TOKENLESS), 2);
            case NAMED_ANONYMOUS -> new HttpClients(List.of("client-a", "anonymous", TOKENLESS), 2);
        };
    }

    /** The history's key of request {@code request} sent by client {@code client}. */
    int historyKey(int request, int client) {
        if (request < 0 || request >= STRIDE) {
            throw new IllegalArgumentException("a run over HTTP files at most " + STRIDE + " requests per client, "
                    + "got request " + request);
        }
        return request + client * STRIDE;
    }

    /** The workload's request behind a history key. */
    static int requestOf(int historyKey) {
        return historyKey % STRIDE;
    }

    /** The client (its index) behind a history key. */
    static int clientOf(int historyKey) {
        return historyKey / STRIDE;
    }

    /** The index of the client the server knows by {@code principal} ({@code null}: no bearer token), or -1. */
    int indexOf(String principal) {
        if (principal == null) {
            return tokenless;
        }
        for (int i = 0; i < names.size(); i++) {
            if (i != tokenless && names.get(i).equals(principal)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether client {@code client} sends no bearer token. */
    boolean anonymous(int client) {
        return client == tokenless;
    }

    /** What reads a caller's HTTP answer into its record: a charge, a refusal, or an answer it cannot read. */
    @FunctionalInterface
    interface Answers {
        void read(HttpResponse<String> response) throws IOException;
    }

    /**
     * Sends {@code request} for {@code caller}: on a caller's thread when it is synchronous, else as an
     * exchange that a cancelling caller gives up after its delay (HTTP has no cancel: the server goes on,
     * and the record says {@code client-gave-up}). Either way {@code answers} reads what came back, a
     * failure is recorded as the call's, and {@code answered} runs once the call has its outcome.
     */
    static void exchange(Callers callers, HttpClient http, HttpRequest request, Workload.Caller caller,
                         CallRecord record, Runnable answered, Answers answers) {
        if (!caller.async()) {
            callers.sync().execute(() -> {
                record.sent(callers.now());
                try {
                    answers.read(http.send(request, HttpResponse.BodyHandlers.ofString()));
                } catch (Throwable failure) {
                    record.failed(callers.now(), failure);
                } finally {
                    answered.run();
                }
            });
            return;
        }
        record.sent(callers.now());
        CompletableFuture<HttpResponse<String>> exchange = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        exchange.whenComplete((response, failure) -> {
            if (CoordinatorPath.unwrap(failure) instanceof CancellationException) {
                record.failed(callers.now(), "client-gave-up");
            } else if (failure != null) {
                record.failed(callers.now(), CoordinatorPath.unwrap(failure));
            } else {
                try {
                    answers.read(response);
                } catch (IOException | RuntimeException unreadable) {
                    record.failed(callers.now(), unreadable);
                }
            }
            answered.run();
        });
        if (caller.cancels()) {
            callers.launcher().schedule(() -> exchange.cancel(true), caller.cancelAfterMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
