package dev.idemlab.idempotency.store.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A script's reply in the form {@link ScriptReply} reads: one flat array of integers ({@code Long}) and
 * bulk strings, kept as their bytes ({@code byte[]}; {@code null} for a nil). A record holds its
 * fingerprint's 32 bytes, which decoding the reply as text would mangle; {@link RecordEncoding} reads
 * the bytes. A nested array would be flattened: no script answers one ({@link ScriptReply} checks
 * each reply's shape).
 *
 * <p>The scripts answer their common outcomes with a bare value instead of an array, because a table
 * reply costs Redis 6.2 about as much server time as the command it carries (see reserve.lua). They
 * are read back into the documented arrays here: a bare bulk string is a record found,
 * {@code {FOUND, record}}; a bare nil is {@code {ABSENT}}; a bare integer is the reserve script's
 * fencing number, {@code {DONE, fence}}, and any other script's status, {@code {status}}.
 *
 * <p>One per command; not thread-safe (Lettuce fills it from its event loop, then hands it over).
 */
final class ScriptOutput extends CommandOutput<String, String, List<Object>> {

    private final LuaScript script;
    /** Whether the reply is an array; every bare value arrives without one. */
    private boolean array;

    ScriptOutput(LuaScript script) {
        super(StringCodec.UTF8, new ArrayList<>(3));
        this.script = script;
    }

    @Override
    public void multi(int count) {
        array = true;
    }

    @Override
    public void set(ByteBuffer bytes) {
        byte[] value = null;
        if (bytes != null) {
            value = new byte[bytes.remaining()];
            bytes.get(value);
        }
        if (!array) {
            output.add(value == null ? ScriptReply.ABSENT : ScriptReply.FOUND);
            if (value == null) {
                return;
            }
        }
        output.add(value);
    }

    @Override
    public void set(long integer) {
        if (!array && script == LuaScript.RESERVE) {
            output.add(ScriptReply.DONE);
        }
        output.add(integer);
    }
}
