package dev.idemlab.lab.faults;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotencyConfig;
import dev.idemlab.idempotency.IdempotencyCoordinator;
import dev.idemlab.idempotency.IdempotencyKeyReuseException;
import dev.idemlab.idempotency.IdempotentCall;
import dev.idemlab.idempotency.IdempotentReplayUnavailableException;
import dev.idemlab.idempotency.InvalidIdempotencyConfigException;
import dev.idemlab.idempotency.InvalidIdempotencyKeyException;
import dev.idemlab.idempotency.ResultCodec;
import dev.idemlab.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idemlab.provider.FakePaymentProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static dev.idemlab.lab.faults.Case.ANY;
import static dev.idemlab.lab.faults.FaultCase.Outcome.of;
import static dev.idemlab.lab.faults.FaultRig.key;

/** Faults of what callers and configs pass in (cases 29 to 33 and 36 to 38): the coordinator alone, on memory. */
final class InputFaults {

    private InputFaults() { }

    static List<FaultCase> all() {
        return List.of(
                new Case(29, "bad keys", "null, empty, blank, 255 vs 256 code points, 255 emoji, NUL, newline, an "
                        + "unpaired surrogate, 'a:b'+'c' vs 'a'+'b:c'", "400 for each invalid key; a null key runs "
                        + "without idempotency; the two splits are two records", ANY, InputFaults::badKeys),
                new Case(30, "a result that is not JSON-serializable", "the codec hands Jackson a new Object() "
                        + "with the charge, which Jackson refuses", "the charge is returned once, never released, "
                        + "replays fail clearly, no second charge", ANY, rig -> unstorable(o -> {
                            try {
                                return new com.fasterxml.jackson.databind.ObjectMapper()
                                        .writeValueAsString(Map.of("charge", o, "extra", new Object()));
                            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        })),
                new Case(31, "an oversized result", "a 10 MB result", "returned once, not stored, replays fail "
                        + "clearly, no second charge", ANY, rig -> unstorable(o -> "\"" + "x".repeat(10_000_000) + "\"")),
                new Case(32, "ttl of 0, 59 s, negative, Long.MAX", "IdempotencyConfig.custom().ttl(...).build()",
                        "refused when the config is built, naming the rule; no overflow", ANY, InputFaults::badTtls),
                new Case(33, "lease longer than the ttl", "lease 90 s, ttl 60 s", "refused when the config is built",
                        ANY, rig -> refused(() -> IdempotencyConfig.custom().lease(Duration.ofSeconds(90))
                        .ttl(Duration.ofSeconds(60)).build())),
                new Case(36, "fingerprint canonicalization", "member order; 5, 5.0, 5e0, 5.00; 2^53+1; "
                        + "NFC vs NFD", "equal requests, one fingerprint; 2^53+1 refused rather than rounded", ANY,
                        InputFaults::canonicalization),
                new Case(37, "volatile fields", "a retry with a new trace id and timestamp, fields not named",
                        "a replay, not 422", ANY, InputFaults::volatileFields),
                new Case(38, "fingerprint check on every path", "another amount under the same key, while "
                        + "pending and after completion", "422 on every path", ANY, InputFaults::everyPath));
    }

    private static FaultCase.Outcome badKeys(FaultRig rig) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("empty", "");
        keys.put("blank", "   ");
        keys.put("256 code points", "k".repeat(256));
        keys.put("NUL", "a\u0000b");
        keys.put("newline", "a\nb");
        keys.put("unpaired surrogate", "order-1\uD800");
        List<String> seen = new ArrayList<>();
        boolean holds = true;
        for (Map.Entry<String, String> key : keys.entrySet()) {
            try {
                IdempotentCall.of("payment.charge", key.getValue(), Fingerprint.ofFields(Map.of("a", 1)));
                seen.add(key.getKey() + ": accepted");
                holds = false;
            } catch (InvalidIdempotencyKeyException e) {
                seen.add(key.getKey() + ": " + e.httpStatus());
            }
        }
        boolean longOk = IdempotentCall.of("payment.charge", "k".repeat(255), Fingerprint.ofFields(Map.of("a", 1))) != null
                && IdempotentCall.of("payment.charge", "\uD83D\uDCB3".repeat(255), Fingerprint.ofFields(Map.of("a", 1))) != null;
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        coordinator.execute(IdempotentCall.of("a", "b:c", Fingerprint.ofFields(Map.of("a", 1))), FaultRig.CHARGE,
                () -> provider.charge("o-1", 1, null));
        coordinator.execute(IdempotentCall.of("a", "b:c", Fingerprint.ofFields(Map.of("a", 1))), FaultRig.CHARGE,
                () -> provider.charge("o-1", 1, null));
        boolean nullRuns = coordinator.execute(IdempotentCall.of("a", null, Fingerprint.ofFields(Map.of("a", 1))),
                FaultRig.CHARGE, () -> provider.charge("o-1", 1, null)) != null;
        holds &= longOk && nullRuns && provider.chargeCount() == 2;
        return of(holds, String.join(", ", seen) + "; 255 code points and 255 emoji accepted: " + longOk
                + "; a null key ran: " + nullRuns);
    }

    private static FaultCase.Outcome unstorable(java.util.function.Function<Object, String> encode) {
        ResultCodec<String> codec = new ResultCodec<>() {
            @Override
            public String encode(String result) {
                return encode.apply(result);
            }

            @Override
            public String decode(String json) {
                return json;
            }
        };
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        IdempotentCall call = FaultRig.call(key(), 10);
        String first = coordinator.execute(call, codec, () -> provider.charge("o-1", 10, null).id());
        List<String> retries = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try {
                retries.add(coordinator.execute(call, codec, () -> provider.charge("o-1", 10, null).id()));
            } catch (IdempotentReplayUnavailableException e) {
                retries.add("replay unavailable (" + e.httpStatus() + ")");
            }
        }
        boolean holds = "ch_1".equals(first) && provider.chargeCount() == 1
                && retries.stream().allMatch(r -> r.startsWith("replay unavailable"));
        return of(holds, "first " + first + ", retries " + retries + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome badTtls(FaultRig rig) {
        List<String> seen = new ArrayList<>();
        boolean holds = true;
        for (Duration ttl : List.of(Duration.ZERO, Duration.ofSeconds(59), Duration.ofSeconds(-1),
                Duration.ofSeconds(Long.MAX_VALUE))) {
            FaultCase.Outcome one = refused(() -> IdempotencyConfig.custom().ttl(ttl).build());
            holds &= one.holds();
            seen.add(ttl + ": " + (one.holds() ? "refused" : "accepted"));
        }
        return of(holds, String.join(", ", seen));
    }

    private static FaultCase.Outcome refused(Supplier<IdempotencyConfig> build) {
        try {
            build.get();
            return of(false, "accepted");
        } catch (InvalidIdempotencyConfigException e) {
            return of(true, "refused: " + e.getMessage());
        } catch (ArithmeticException e) {
            return of(false, "overflowed: " + e);
        }
    }

    private static FaultCase.Outcome canonicalization(FaultRig rig) {
        Map<String, Object> ab = new LinkedHashMap<>();
        ab.put("order_id", "o-1");
        ab.put("amount", 5);
        Map<String, Object> ba = new LinkedHashMap<>();
        ba.put("amount", new java.math.BigDecimal("5.00"));
        ba.put("order_id", "o-1");
        boolean orderAndSpelling = Fingerprint.ofFields(ab).equals(Fingerprint.ofFields(ba))
                && Fingerprint.ofFields(Map.of("amount", 5.0)).equals(Fingerprint.ofFields(Map.of("amount", 5)))
                && Fingerprint.ofFields(Map.of("amount", new java.math.BigDecimal("5e0")))
                .equals(Fingerprint.ofFields(Map.of("amount", 5)));
        boolean refused;
        try {
            Fingerprint.ofFields(Map.of("amount", (1L << 53) + 1));
            refused = false;
        } catch (IllegalArgumentException e) {
            refused = true;
        }
        boolean nfdDiffers = !Fingerprint.ofFields(Map.of("name", "caf\u00e9"))
                .equals(Fingerprint.ofFields(Map.of("name", "cafe\u0301")));
        return of(orderAndSpelling && refused, "member order and 5/5.0/5e0/5.00 agree: " + orderAndSpelling
                + "; 2^53+1 refused: " + refused + "; NFC and NFD differ (no Unicode normalization, as RFC 8785): "
                + nfdDiffers);
    }

    private static FaultCase.Outcome volatileFields(FaultRig rig) {
        record Request(String orderId, long amount, String traceId, String sentAt) { }
        FakePaymentProvider provider = FaultRig.provider();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        String key = key();
        String first = coordinator.execute(IdempotentCall.of("payment.charge", key,
                        Fingerprint.ofNamed(new Request("o-1", 10, "trace-a", "12:00:00"), "orderId", "amount")),
                FaultRig.CHARGE, () -> provider.charge("o-1", 10, null)).id();
        String retry = coordinator.execute(IdempotentCall.of("payment.charge", key,
                        Fingerprint.ofNamed(new Request("o-1", 10, "trace-b", "12:00:03"), "orderId", "amount")),
                FaultRig.CHARGE, () -> provider.charge("o-1", 10, null)).id();
        return of(first.equals(retry) && provider.chargeCount() == 1, "first " + first + ", retry " + retry
                + "; ledger " + provider.chargeIds());
    }

    private static FaultCase.Outcome everyPath(FaultRig rig) throws Exception {
        java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        FakePaymentProvider provider = FakePaymentProvider.builder().latency(n -> {
            if (n == 1) {
                inside.countDown();
                release.await(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        }).build();
        IdempotencyCoordinator coordinator = IdempotencyCoordinator.builder(new InMemoryIdempotencyStore()).build();
        String key = key();
        var holder = java.util.concurrent.CompletableFuture.supplyAsync(() -> coordinator.execute(
                FaultRig.call(key, 10), FaultRig.CHARGE, () -> provider.charge("o-1", 10, null)));
        inside.await(30, java.util.concurrent.TimeUnit.SECONDS);
        String whilePending = reuse(coordinator, key, provider);
        release.countDown();
        holder.get(30, java.util.concurrent.TimeUnit.SECONDS);
        String afterCompletion = reuse(coordinator, key, provider);
        boolean holds = whilePending.equals("422") && afterCompletion.equals("422") && provider.chargeCount() == 1;
        return of(holds, "while pending: " + whilePending + ", after completion: " + afterCompletion + "; ledger "
                + provider.chargeIds());
    }

    private static String reuse(IdempotencyCoordinator coordinator, String key, FakePaymentProvider provider) {
        try {
            return coordinator.execute(FaultRig.call(key, 5), FaultRig.CHARGE, () -> provider.charge("o-1", 5, null)).id();
        } catch (IdempotencyKeyReuseException e) {
            return String.valueOf(e.httpStatus());
        }
    }
}
