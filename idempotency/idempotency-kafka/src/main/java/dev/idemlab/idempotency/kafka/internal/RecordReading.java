package dev.idemlab.idempotency.kafka.internal;

import dev.idemlab.idempotency.Fingerprint;
import dev.idemlab.idempotency.kafka.InvalidRecordException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How a record becomes a call: its key (a header or a function) and its fingerprint (named fields of
 * the value, or the whole value). Every failure is an {@link InvalidRecordException} naming the record
 * and the rule, so that a bad record is never acknowledged as if it had been handled.
 *
 * <p>Immutable and thread-safe when the functions are.
 */
public final class RecordReading<K, V> {

    private final String keyHeader;
    private final Function<? super ConsumerRecord<K, V>, String> keyFunction;
    private final boolean keyRequired;
    private final List<String> fingerprintFields;
    private final Function<? super V, ?> valueReader;

    /** The reading of keys and fingerprints the handler's builder was given. */
    public RecordReading(String keyHeader, Function<? super ConsumerRecord<K, V>, String> keyFunction,
                         boolean keyRequired, List<String> fingerprintFields, Function<? super V, ?> valueReader) {
        this.keyHeader = keyHeader;
        this.keyFunction = keyFunction;
        this.keyRequired = keyRequired;
        this.fingerprintFields = List.copyOf(fingerprintFields);
        this.valueReader = valueReader;
    }

    /**
     * The record's key, or {@code null} when it has none and none is required.
     *
     * @throws InvalidRecordException if it has none and one is required, or the key function threw
     */
    public String keyOf(ConsumerRecord<K, V> record, String operation) {
        String key;
        if (keyFunction != null) {
            try {
                key = keyFunction.apply(record);
            } catch (RuntimeException e) {
                throw invalid(record, operation, null, "the key function failed: " + e, e);
            }
        } else {
            Header header = record.headers().lastHeader(keyHeader);
            key = header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }
        if (key == null && keyRequired) {
            throw invalid(record, operation, null, keyFunction != null
                    ? "an idempotency key is required and the key function found none"
                    : "an idempotency key is required in header '" + keyHeader + "' and the record has none", null);
        }
        return key;
    }

    /**
     * The fingerprint of the record's value: the named fields, or the whole value.
     *
     * @throws InvalidRecordException if the value reader throws, the value lacks a named field or is
     *     not an object to pick fields from, or cannot be written as canonical JSON
     */
    public Fingerprint fingerprintOf(ConsumerRecord<K, V> record, String operation, String key) {
        Object value;
        try {
            value = valueReader.apply(record.value());
        } catch (RuntimeException e) {
            throw invalid(record, operation, key, "the fingerprint cannot read the value: " + e, e);
        }
        try {
            if (fingerprintFields.isEmpty()) {
                Map<String, Object> whole = new HashMap<>();
                whole.put("value", value instanceof byte[] bytes ? Base64.getEncoder().encodeToString(bytes) : value);
                return Fingerprint.ofFields(whole);
            }
            if (value == null) {
                throw new IllegalArgumentException("the value is null (a tombstone?), so it has no fields "
                        + fingerprintFields);
            }
            return Fingerprint.ofNamed(value, fingerprintFields.toArray(String[]::new));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw invalid(record, operation, key, "the fingerprint "
                    + (fingerprintFields.isEmpty() ? "of the whole value" : "of fields " + fingerprintFields)
                    + " cannot read the value: " + e.getMessage(), e);
        }
    }

    private static InvalidRecordException invalid(ConsumerRecord<?, ?> record, String operation, String key,
                                                  String rule, Throwable cause) {
        return new InvalidRecordException(operation, key, record.topic(), record.partition(), record.offset(), rule, cause);
    }

    @Override
    public String toString() {
        return (keyFunction != null ? "key=function" : "keyHeader=" + keyHeader) + ", keyRequired=" + keyRequired
                + ", fingerprint=" + (fingerprintFields.isEmpty() ? "whole value" : fingerprintFields);
    }
}
