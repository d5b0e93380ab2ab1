package dev.idemlab.idempotency.store.redis;

import dev.idemlab.idempotency.spi.CompletionNotifications.Ending;
import dev.idemlab.idempotency.spi.IdempotencyRecord.Completed;
import dev.idemlab.idempotency.spi.StoredResult;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** What the scripts publish when a reservation ends, read back (the scripts' side runs in the store's tests). */
class RedisEndingMessageTest {

    private static final String KEY = "idem:{payment.charge:k\u00e9y|\uD83D\uDCB3}";

    @Test
    void aCompletionCarriesTheTokenAndTheRecordWhateverTheKeyAndTokenHold() {
        String message = "2|c|" + bytes(KEY) + "|" + bytes("t|1") + "|" + KEY + "t|1" + "2|c|fp|{\"id\":\"ch|1\"}";
        EndingMessage read = EndingMessage.read(utf8(message), key -> true);
        assertThat(read.key()).isEqualTo(KEY);
        assertThat(read.ending()).isEqualTo(new Ending.Completed("t|1",
                new Completed("fp", StoredResult.of("{\"id\":\"ch|1\"}"))));
    }

    @Test
    void aCompletionWhoseResultWasNotStoredSaysWhy() {
        String message = "2|c|" + bytes(KEY) + "|2|" + KEY + "t12|n|fp|too large";
        assertThat(EndingMessage.read(utf8(message), key -> true).ending()).isEqualTo(new Ending.Completed("t1",
                new Completed("fp", StoredResult.notStored("too large"))));
    }

    @Test
    void aReleaseCarriesTheToken() {
        String message = "2|r|" + bytes(KEY) + "|2|" + KEY + "t1";
        assertThat(EndingMessage.read(utf8(message), key -> true))
                .isEqualTo(new EndingMessage(KEY, new Ending.Released("t1")));
    }

    @Test
    void anEndingTooLargeToCarryIsUnknown() {
        String message = "2|u|" + bytes(KEY) + "|0|" + KEY;
        assertThat(EndingMessage.read(utf8(message), key -> true)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    @Test
    void theEndingOfAKeyNobodyWaitsOnIsNotRead() {
        String message = "2|c|" + bytes(KEY) + "|2|" + KEY + "t12|c|fp|1";
        assertThat(EndingMessage.read(utf8(message), key -> false)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    @Test
    void aMessageOfAnEarlierStoreIsItsKeyWithAnUnknownEnding() {
        assertThat(EndingMessage.read(utf8(KEY), key -> true)).isEqualTo(new EndingMessage(KEY, Ending.UNKNOWN));
    }

    @Test
    void aMessageWhoseLengthsDoNotFitOrWhoseRecordIsNotACompletionIsUnknown() {
        String tooLong = "2|c|999|2|" + KEY + "t1";
        String pending = "2|c|" + bytes(KEY) + "|2|" + KEY + "t12|p|fp|t1";
        assertThat(EndingMessage.read(utf8(tooLong), key -> true).ending()).isEqualTo(Ending.UNKNOWN);
        assertThat(EndingMessage.read(utf8(pending), key -> true).ending()).isEqualTo(Ending.UNKNOWN);
    }

    private static int bytes(String text) {
        return utf8(text).length;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
