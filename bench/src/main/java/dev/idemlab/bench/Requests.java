package dev.idemlab.bench;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.IdempotentAction;
import dev.idemlab.idempotency.ResultCodec;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The request every benchmark sends: a card charge for a realistic order. */
public final class Requests {

    /** The operation every call names. */
    public static final String OPERATION = "payment.charge";

    /** The result codec of the no-op action. */
    public static final ResultCodec<String> CODEC = ResultCodec.json(String.class);

    /** The no-op action: returns a charge id, as a provider would, without waiting for one. */
    public static final IdempotentAction<String, RuntimeException> NO_OP = () -> "ch_1";

    /** The action of a call that must be replayed or refused: running it is a broken benchmark. */
    public static final IdempotentAction<String, RuntimeException> MUST_NOT_RUN = () -> {
        throw new IllegalStateException("the action ran where the coordinator had to replay or refuse");
    };

    /** The fingerprint of {@link #payload()}, computed once: fingerprinting is its own benchmark. */
    public static final Fingerprint FINGERPRINT = Fingerprint.ofFields(payload());

    private Requests() { }

    /** An order as a checkout sends it: id, amount, currency, customer and three line items. */
    public static Map<String, Object> payload() {
        Map<String, Object> customer = new LinkedHashMap<>();
        customer.put("id", "cus_9QvX2bT7mKp4");
        customer.put("email", "ada.lovelace@example.com");
        customer.put("country", "GB");
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("order_id", "ord_2024_000184467");
        payload.put("amount", new BigDecimal("129.90"));
        payload.put("currency", "EUR");
        payload.put("customer", customer);
        payload.put("line_items", List.of(
                lineItem("sku-4411-blk-m", "Merino crew, black, M", 2, "39.95"),
                lineItem("sku-0827", "Wool socks, 3 pairs", 1, "24.00"),
                lineItem("sku-9002-gift", "Gift wrapping", 1, "26.00")));
        return payload;
    }

    private static Map<String, Object> lineItem(String sku, String name, int quantity, String unitPrice) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("sku", sku);
        item.put("name", name);
        item.put("quantity", quantity);
        item.put("unit_price", new BigDecimal(unitPrice));
        return item;
    }
}
