package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;

import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * What the complete and release scripts publish when a reservation ends, read back: the record's key
 * and how it ended. The message is {@code 3|<how>|<#key>|<#token>|<key><token><record>}, lengths in
 * UTF-8 bytes, so that key and token may hold any character:
 * <ul>
 *   <li>{@code c}: completed by the token into the record that follows ({@link RecordEncoding});
 *   <li>{@code r}: released by the token (no record);
 *   <li>{@code u}: ended, but the record was too large to carry (no token): waiters read it.
 * </ul>
 * The record holds its fingerprint's bytes, so the message is read as bytes. A message that is none of
 * these (one published by an earlier version of the store: the key alone, or a message of record schema
 * version 2) is taken as a key whose ending is {@link Ending#UNKNOWN}, so its waiters read the record.
 *
 * @param key the record's key, whose waiters are told
 * @param ending how the reservation ended, as far as the message says
 */
record EndingMessage(String key, Ending ending) {

    /** The largest completed record a message carries: 64 KiB. */
    static final int MOST_CARRIED = 65_536;

    /**
     * Reads a published message; never throws.
     *
     * @param watched whether anyone waits on a key: the ending of a key nobody waits on is not read
     */
    static EndingMessage read(byte[] message, Predicate<String> watched) {
        try {
            EndingMessage read = parse(message, watched);
            if (read != null) {
                return read;
            }
        } catch (RuntimeException malformed) {
            // Lengths that do not fit the message: not ours to explain, so waiters read the record.
        }
        return new EndingMessage(new String(message, StandardCharsets.UTF_8), Ending.UNKNOWN);
    }

    private static EndingMessage parse(byte[] message, Predicate<String> watched) {
        if (message.length < 8 || message[0] != '0' + RecordEncoding.SCHEMA_VERSION || message[1] != '|'
                || message[3] != '|') {
            return null;
        }
        byte how = message[2];
        int keyBar = indexOf(message, 4);
        int tokenBar = indexOf(message, keyBar + 1);
        int keyLength = Integer.parseInt(ascii(message, 4, keyBar));
        int tokenLength = Integer.parseInt(ascii(message, keyBar + 1, tokenBar));
        int keyAt = tokenBar + 1;
        int tokenAt = keyAt + keyLength;
        int recordAt = tokenAt + tokenLength;
        if (recordAt > message.length) {
            return null;
        }
        String key = new String(message, keyAt, keyLength, StandardCharsets.UTF_8);
        if (!watched.test(key)) {
            return new EndingMessage(key, Ending.UNKNOWN);
        }
        String token = new String(message, tokenAt, tokenLength, StandardCharsets.UTF_8);
        byte[] record = java.util.Arrays.copyOfRange(message, recordAt, message.length);
        if (how == 'c' && RecordEncoding.isCompleted(record)) {
            return new EndingMessage(key, new Ending.Completed(token,
                    (Completed) RecordEncoding.decode(record, -1, key)));
        }
        if (how == 'r' && record.length == 0) {
            return new EndingMessage(key, new Ending.Released(token));
        }
        return how == 'u' ? new EndingMessage(key, Ending.UNKNOWN) : null;
    }

    /**
     * The head of the message complete.lua publishes: {@code 3|c|<#key>|<#token>|<key><token>}, which the
     * completed record follows, or, when the record ({@code recordBytes} long) is too large to carry
     * (over {@value #MOST_CARRIED} bytes), the whole message {@code 3|u|<#key>|0|<key>}. Built here,
     * not in the script (see complete.lua).
     */
    static byte[] completedHead(String key, String token, int recordBytes) {
        return recordBytes > MOST_CARRIED ? message('u', key, "") : message('c', key, token);
    }

    /** The message release.lua publishes: {@code 3|r|<#key>|<#token>|<key><token>}. */
    static byte[] released(String key, String token) {
        return message('r', key, token);
    }

    private static byte[] message(char how, String key, String token) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        byte[] tokenBytes = token.getBytes(StandardCharsets.UTF_8);
        byte[] head = (RecordEncoding.SCHEMA_VERSION + "|" + how + "|" + keyBytes.length + "|" + tokenBytes.length + "|")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] message = java.util.Arrays.copyOf(head, head.length + keyBytes.length + tokenBytes.length);
        System.arraycopy(keyBytes, 0, message, head.length, keyBytes.length);
        System.arraycopy(tokenBytes, 0, message, head.length + keyBytes.length, tokenBytes.length);
        return message;
    }

    private static int indexOf(byte[] message, int from) {
        for (int i = from; i < message.length; i++) {
            if (message[i] == '|') {
                return i;
            }
        }
        throw new IllegalArgumentException("no '|' after " + from);
    }

    private static String ascii(byte[] message, int from, int to) {
        return new String(message, from, to - from, StandardCharsets.US_ASCII);
    }
}
