package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.Signals;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Redis under the nemesis: the store connects through a TCP proxy (freeze, dropped replies, resets),
 * and a connection of the nemesis's own, straight to the server, pauses it ({@code CLIENT PAUSE}) and
 * drops the store's connections ({@code CLIENT KILL}); a private server is also stopped with
 * {@code SIGSTOP}.
 */
final class RedisTarget extends NemesisTarget {

    private final TcpProxy proxy;
    private final RedisIdempotencyStore store;
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> admin;
    private final OptionalLong serverPid;

    RedisTarget(RedisBackend backend) throws IOException {
        URI server = URI.create(backend.uri());
        this.proxy = TcpProxy.to(server.getHost(), server.getPort());
        this.store = backend.openStoreThrough(proxy.port());
        this.adminClient = RedisClient.create(backend.uri());
        this.admin = adminClient.connect();
        this.serverPid = backend.serverPid();
    }

    @Override
    IdempotencyStore store() {
        return store;
    }

    @Override
    List<FaultKind> kinds() {
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.PAUSE_ALL, FaultKind.PAUSE_WRITE,
                FaultKind.KILL_CONNECTIONS, FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET));
        if (serverPid.isPresent()) {
            kinds.add(FaultKind.STOP_SERVER);
        }
        return kinds;
    }

    @Override
    void inject(FaultKind kind, Duration length) {
        switch (kind) {
            case PAUSE_ALL, PAUSE_WRITE -> {
                pause(kind == FaultKind.PAUSE_ALL ? "ALL" : "WRITE", length);
                hold(length);
            }
            case KILL_CONNECTIONS -> {
                RedisCommands<String, String> commands = admin.sync();
                commands.clientKill(KillArgs.Builder.typeNormal().skipme());
                commands.clientKill(KillArgs.Builder.typePubsub().skipme());
            }
            case FREEZE -> {
                proxy.freeze();
                try {
                    hold(length);
                } finally {
                    proxy.unfreeze();
                }
            }
            case DROP_REPLIES -> dropReplies(proxy, length);
            case RESET -> proxy.reset();
            case STOP_SERVER -> {
                long pid = serverPid.orElseThrow();
                Signals.send("STOP", pid);
                try {
                    hold(length);
                } finally {
                    Signals.send("CONT", pid);
                }
            }
            default -> throw new IllegalArgumentException(kind.id() + " is not a fault of the redis store");
        }
    }

    /**
     * Replies are dropped for {@code length}, then every connection is reset, so that no client reads
     * half a reply; the flag goes off between two resets for the same reason.
     */
    static void dropReplies(TcpProxy proxy, Duration length) {
        proxy.dropReplies(true);
        try {
            hold(length);
        } finally {
            proxy.reset();
            proxy.dropReplies(false);
            proxy.reset();
        }
    }

    private void pause(String mode, Duration length) {
        admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(length.toMillis()).add(mode));
    }

    @Override
    public void close() {
        serverPid.ifPresent(pid -> Signals.sendQuietly("CONT", pid));
        try {
            admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
        } catch (RuntimeException ignored) {
            // best effort: a pause ends by itself
        }
        store.close();
        admin.close();
        adminClient.shutdown();
        proxy.close();
    }
}
