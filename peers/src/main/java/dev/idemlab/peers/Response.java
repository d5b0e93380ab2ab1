package dev.idemlab.peers;

import dev.idemlab.provider.Charge;

import java.util.Objects;

/**
 * What one caller got back: a charge id, {@code null}, some other object, or an exception.
 *
 * @param kind which of those it was
 * @param chargeId the charge id when {@code kind} is {@link Kind#CHARGE}, else {@code null}
 * @param detail for {@link Kind#OTHER} the object's type and text; for {@link Kind#ERROR} the
 *               exception's class and message (and its root cause's); else empty
 * @param signal for {@link Kind#ERROR} what the exception tells the client, else {@code null}
 */
public record Response(Kind kind, String chargeId, String detail, ErrorSignal signal) {

    private static final int MAX_DETAIL = 160;

    /** The shapes an answer can take. */
    public enum Kind { CHARGE, NULL, OTHER, ERROR }

    public Response {
        Objects.requireNonNull(kind, "kind");
        detail = detail == null ? "" : detail;
    }

    /** Classifies a value a library returned. */
    public static Response of(Object value) {
        if (value == null) {
            return new Response(Kind.NULL, null, "", null);
        }
        if (value instanceof ChargeReceipt receipt) {
            return new Response(Kind.CHARGE, receipt.chargeId(), "", null);
        }
        if (value instanceof Charge charge) {
            return new Response(Kind.CHARGE, charge.id(), "", null);
        }
        return new Response(Kind.OTHER, null, clip(value.getClass().getSimpleName() + " " + value), null);
    }

    /** Classifies an exception a library threw. */
    public static Response error(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = describe(error) + (root == error ? "" : " <- " + describe(root));
        return new Response(Kind.ERROR, null, clip(text), ErrorSignal.of(error));
    }

    /** True when this is the charge {@code id}. */
    public boolean isCharge(String id) {
        return kind == Kind.CHARGE && chargeId.equals(id);
    }

    /** Short form for tables: {@code ch_1}, {@code null}, the exception's class, or the object's type. */
    public String brief() {
        return switch (kind) {
            case CHARGE -> chargeId;
            case NULL -> "null";
            case ERROR -> detail.split("[: ]", 2)[0];
            case OTHER -> detail.split(" ", 2)[0] + " (not a charge)";
        };
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CHARGE -> chargeId;
            case NULL -> "null";
            case ERROR -> detail + " [" + signal + "]";
            case OTHER -> detail;
        };
    }

    private static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    private static String clip(String text) {
        String oneLine = text.replace('\n', ' ');
        return oneLine.length() <= MAX_DETAIL ? oneLine : oneLine.substring(0, MAX_DETAIL) + "...";
    }
}
