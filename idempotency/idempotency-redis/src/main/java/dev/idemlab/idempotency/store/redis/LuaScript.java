package dev.idemlab.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The store's Lua scripts, one per SPI operation, read from the classpath once. Each script's
 * SHA-1 is computed here, so EVALSHA works even when the store was created while its server was
 * down and could not be asked to SCRIPT LOAD.
 *
 * <p>Thread-safe (immutable).
 */
enum LuaScript {
    RESERVE("reserve.lua"),
    RENEW("renew.lua"),
    COMPLETE("complete.lua"),
    RELEASE("release.lua"),
    LOOKUP("lookup.lua");

    private final String resource;
    private final String body;
    private final String sha;

    LuaScript(String resource) {
        this.resource = resource;
        this.body = read(resource);
        this.sha = sha1(body);
    }

    /** The script's source, as SCRIPT LOAD wants it. */
    String body() {
        return body;
    }

    /** The SHA-1 that EVALSHA names it by. */
    String sha() {
        return sha;
    }

    /** The file name, for error messages. */
    String resource() {
        return resource;
    }

    private static String read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + resource, e);
        }
    }

    private static String sha1(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}
