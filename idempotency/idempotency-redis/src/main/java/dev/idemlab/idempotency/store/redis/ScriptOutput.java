package dev.idemlab.idempotency.store.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A script's reply as the store's scripts give it: one flat array of integers ({@code Long}) and bulk
 * strings, kept as their bytes ({@code byte[]}; {@code null} for a nil). A record holds its
 * fingerprint's 32 bytes, which decoding the reply as text would mangle; {@link RecordEncoding} reads
 * the bytes. A nested array would be flattened: no script answers one ({@link ScriptReply} checks
 * each reply's shape).
 *
 * <p>One per command; not thread-safe (Lettuce fills it from its event loop, then hands it over).
 */
final class ScriptOutput extends CommandOutput<String, String, List<Object>> {

    ScriptOutput() {
        super(StringCodec.UTF8, new ArrayList<>(3));
    }

    @Override
    public void set(ByteBuffer bytes) {
        if (bytes == null) {
            output.add(null);
            return;
        }
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        output.add(copy);
    }

    @Override
    public void set(long integer) {
        output.add(integer);
    }
}
