package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/** What the scripts publish when a reservation ends, read back (the scripts' side runs in the store's tests). */
class RedisEndingMessageTest {

    private static final String KEY = "idem:{payment.charge:k\u00e9y|\uD83D\uDCB3}";
    /** A fingerprint whose bytes hold a bar and bytes that are not UTF-8 on their own. */
    private static final String FP = "7c" + "ff".repeat(15) + "00".repeat(15) + "c3";

    @Test
    void aCompletionCarriesTheTokenAndTheRecordWhateverTheKeyTokenAndFingerprintHold() {
        byte[] message = message("3|c|" + bytes(KEY) + "|" + bytes("t|1") + "|" + KEY + "t|1",
                record("3|c|", "{\"id\":\"ch|1\"}"));
        EndingMessage read = EndingMessage.read(message, key -> true);
        assertThat(read.key()).isEqualTo(KEY);
        assertThat(read.ending()).isEqualTo(new Ending.Completed("t|1",
                new Completed(FP, StoredResult.of("{\"id\":\"ch|1\"}"))));
    }

    @Test
    void aCompletionWhoseResultWasNotStoredSaysWhy() {
        byte[] message = message("3|c|" + bytes(KEY) + "|2|" + KEY + "t1", record("3|n|", "too large"));
        assertThat(EndingMessage.read(message, key -> true).ending()).isEqualTo(new Ending.Completed("t1",
                new Completed(FP, StoredResult.notStored("too large"))));
    }

    @Test
    void aReleaseCarriesTheToken() {
        byte[] message = utf8("3|r|" + bytes(KEY) + "|2|" + KEY + "t1");
        assertThat(EndingMessage.read(message, key -> true)).isEqualTo(new EndingMessage(KEY, new Ending.Released("t1")));
    }

    @Test
    void anEndingTooLargeToCarryIsUnknown() {
        byte[] message = utf8("3|u|" + bytes(KEY) + "|0|" + KEY);
        assertThat(EndingMessage.read(message, key -> true)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    @Test
    void theEndingOfAKeyNobodyWaitsOnIsNotRead() {
        byte[] message = message("3|c|" + bytes(KEY) + "|2|" + KEY + "t1", record("3|c|", "1"));
        assertThat(EndingMessage.read(message, key -> false)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    @Test
    void aMessageOfAnEarlierStoreIsItsKeyWithAnUnknownEnding() {
        assertThat(EndingMessage.read(utf8(KEY), key -> true)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    /** Schema version 2 published the fingerprint in hex: its waiters read the record instead. */
    @Test
    void aMessageOfRecordSchemaVersion2IsUnknownSoItsWaitersReadTheRecord() {
        byte[] message = utf8("2|c|" + bytes(KEY) + "|2|" + KEY + "t12|c|" + FP + "|1");
        assertThat(EndingMessage.read(message, key -> true).ending()).isEqualTo(Ending.UNKNOWN);
    }

    @Test
    void aMessageWhoseLengthsDoNotFitOrWhoseRecordIsNotACompletionIsUnknown() {
        byte[] tooLong = utf8("3|c|999|2|" + KEY + "t1");
        byte[] pending = message("3|c|" + bytes(KEY) + "|2|" + KEY + "t1", record("3|p|", "1700000000000000|t1"));
        byte[] cutShort = message("3|c|" + bytes(KEY) + "|2|" + KEY + "t1", utf8("3|c|" + "ab".repeat(10)));
        assertThat(EndingMessage.read(tooLong, key -> true).ending()).isEqualTo(Ending.UNKNOWN);
        assertThat(EndingMessage.read(pending, key -> true).ending()).isEqualTo(Ending.UNKNOWN);
        assertThat(EndingMessage.read(cutShort, key -> true).ending()).isEqualTo(Ending.UNKNOWN);
    }

    /** A record as the scripts write it: header, the fingerprint's 32 bytes, then the rest. */
    private static byte[] record(String header, String rest) {
        return message(header, HexFormat.of().parseHex(FP), utf8(rest));
    }

    private static byte[] message(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            out.writeBytes(part instanceof byte[] bytes ? bytes : utf8((String) part));
        }
        return out.toByteArray();
    }

    private static int bytes(String text) {
        return utf8(text).length;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
