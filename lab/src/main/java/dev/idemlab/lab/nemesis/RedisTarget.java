package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.idempotency.store.redis.RedisIdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.faults.TcpProxy;
import dev.idemlab.lab.infra.PrivateRedisServer;
import dev.idemlab.lab.infra.RedisBackend;
import dev.idemlab.lab.infra.ServerDurability;
import dev.idemlab.lab.infra.ServerInfo;
import dev.idemlab.lab.infra.Signals;
import dev.idemlab.lab.infra.SnapshotRedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
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
 * Redis under the nemesis: the store connects through a TCP proxy (freeze, dropped replies, dropped
 * requests, resets),
 * and a connection of the nemesis's own, straight to the server, pauses it ({@code CLIENT PAUSE}) and
 * drops the store's connections ({@code CLIENT KILL}); a server the lab started is also stopped
 * ({@code SIGSTOP}). When the backend's server is one the lab started (and not durable), the target
 * starts a server of its own whose RDB snapshot lives in a directory of its own, and uses it instead:
 * that one it also restarts from its last snapshot, which loses every write since. A server given by
 * URL is used as it is, and never stopped or restarted.
 */
final class RedisTarget extends NemesisTarget {

    private final TcpProxy proxy;
    private final RedisIdempotencyStore store;
    /**
     * The same records on a connection of the nemesis's own, through a proxy that follows the server across
     * restarts and is never faulted: a reserve whose reply the store's proxy drops shows there as it lands.
     */
    private final TcpProxy witnessProxy;
    private final RedisIdempotencyStore witness;
    private final RedisClient adminClient;
    /** The target's own server, whose process a restart replaces; {@code null} when it uses the backend's. */
    private final SnapshotRedisServer owned;
    /** The backend's private server, stopped when the target uses it; empty for one given by URL. */
    private final OptionalLong backendPid;
    private volatile StatefulRedisConnection<String, String> admin;
    private volatile ServerInfo server;

    RedisTarget(RedisBackend backend) throws IOException {
        super(backend.server());
        // The backend's private server has no data directory to come back from: one of the target's own
        // has. Not when the backend runs durable: an append-only file would bring every write back, and
        // the run would no longer be on the durable server it asked for.
        this.backendPid = backend.serverPid();
        this.owned = backendPid.isPresent() && !appendOnly(backend.server()) ? SnapshotRedisServer.start() : null;
        String uri = owned != null ? owned.current().uri() : backend.uri();
        try {
            this.proxy = TcpProxy.to(URI.create(uri));
        } catch (IOException | RuntimeException e) {
            closeOwned();
            throw e;
        }
        try {
            this.witnessProxy = TcpProxy.to(URI.create(uri));
        } catch (IOException | RuntimeException e) {
            proxy.close();
            closeOwned();
            throw e;
        }
        RedisIdempotencyStore opened = null;
        RedisIdempotencyStore witnessing = null;
        RedisClient client = null;
        try {
            opened = backend.openStoreThrough(proxy.port());
            witnessing = backend.openStoreThrough(witnessProxy.port(), opened.config().keyPrefix());
            client = RedisClient.create();
            this.admin = client.connect(RedisURI.create(uri));
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            if (witnessing != null) {
                witnessing.close();
            }
            if (client != null) {
                client.shutdown();
            }
            proxy.close();
            witnessProxy.close();
            closeOwned();
            throw e;
        }
        this.store = opened;
        this.witness = witnessing;
        this.adminClient = client;
        this.server = owned != null ? describeOwned() : backend.server();
    }

    /** The server in use: the backend's, or (on a private backend) the target's own, as it runs now. */
    @Override
    ServerInfo server() {
        return server;
    }

    @Override
    IdempotencyStore store() {
        return store;
    }

    @Override
    IdempotencyStore witness() {
        return witness;
    }

    @Override
    List<FaultKind> kinds() {
        if (owned == null && backendPid.isEmpty()) {
            // Faults played on the server itself reach every client of it: only on a server the lab started.
            return List.of(FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET, FaultKind.DROP_REQUESTS);
        }
        // In this order: a seed draws its faults by their place in the list.
        List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.PAUSE_ALL, FaultKind.PAUSE_WRITE,
                FaultKind.KILL_CONNECTIONS, FaultKind.FREEZE, FaultKind.DROP_REPLIES, FaultKind.RESET,
                FaultKind.STOP_SERVER));
        if (owned != null) {
            kinds.add(FaultKind.RESTART_FROM_SNAPSHOT);
        }
        kinds.add(FaultKind.DROP_REQUESTS);
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
            case DROP_REPLIES -> dropRepliesTelling(length);
            case DROP_REQUESTS -> dropRequests(proxy, length);
            case RESET -> proxy.reset();
            case STOP_SERVER -> {
                long pid = serverPid().orElseThrow(() -> new IllegalArgumentException(
                        FaultKind.STOP_SERVER.id() + " needs a server the lab started"));
                Signals.send("STOP", pid);
                try {
                    hold(length);
                } finally {
                    Signals.send("CONT", pid);
                }
            }
            case RESTART_FROM_SNAPSHOT -> restartFromSnapshot(length);
            default -> throw new IllegalArgumentException(kind.id() + " is not a fault of the redis store");
        }
    }

    /**
     * SAVE, then writes go on for {@code length}, then the server dies and a new one comes back from
     * that snapshot: the store, through the proxy, and the nemesis's own connection reach the new one.
     * Stopped during the hold, the server is left running and the fault counts as not injected, so that
     * no duplicate is excused by a restart that never happened.
     */
    private void restartFromSnapshot(Duration length) {
        if (owned == null) {
            throw new IllegalArgumentException(FaultKind.RESTART_FROM_SNAPSHOT.id() + " needs a server the lab started");
        }
        admin.sync().save();
        hold(length);
        if (Thread.currentThread().isInterrupted()) {
            throw new IllegalStateException("stopped before the restart: the server saved, and was not killed");
        }
        PrivateRedisServer restarted = owned.restartFromSnapshot();
        URI uri = URI.create(restarted.uri());
        proxy.retarget(uri.getHost(), uri.getPort());
        witnessProxy.retarget(uri.getHost(), uri.getPort());
        StatefulRedisConnection<String, String> dead = admin;
        admin = adminClient.connect(RedisURI.create(restarted.uri()));
        dead.close();
        // Same binary, same settings: only where it listens changed. Asking the new server would wait
        // on the store's reconnection and could fail a restart that did happen.
        server = new ServerInfo(server.store(), server.version(), restarted.origin(), restarted.address(),
                server.durability());
    }

    /** The pid of the server in use, where the lab started it. */
    private OptionalLong serverPid() {
        return owned != null ? owned.current().pid() : backendPid;
    }

    private static boolean appendOnly(ServerInfo server) {
        return server.durability() != null && server.durability().startsWith("appendonly=yes");
    }

    /** The target's own server as it starts, its version and durability settings as it says. */
    private ServerInfo describeOwned() {
        PrivateRedisServer current = owned.current();
        return new ServerInfo("redis", store.describe().serverVersion(), current.origin(), current.address(),
                ServerDurability.redis(current.uri(), false));
    }

    /** Replies are dropped for {@code length}, then {@linkplain TcpProxy#stopDroppingReplies() stopped cleanly}. */
    static void dropReplies(TcpProxy proxy, Duration length) {
        proxy.dropReplies(true);
        try {
            hold(length);
        } finally {
            proxy.stopDroppingReplies();
        }
    }

    /**
     * Replies dropped for {@code length}, the {@linkplain #whenRepliesAreLost listener} told where a reserve
     * sent then still has the whole {@link #STORE_PATIENCE} to fail in before the connections are reset (a
     * reserve sent later is answered on the new connection: it never fails open), and as late as that
     * allows (as it begins, in a loss shorter than the patience and 300 ms), so that the marker it leaves
     * outlives the fault.
     */
    private void dropRepliesTelling(Duration length) {
        Duration latest = length.minus(STORE_PATIENCE).minusMillis(300);
        Duration tellAt = latest.isNegative() ? Duration.ZERO : latest;
        proxy.dropReplies(true);
        try {
            hold(tellAt);
            repliesLost(length);
            hold(length.minus(tellAt));
        } finally {
            proxy.stopDroppingReplies();
        }
    }

    /** Requests are dropped for {@code length}, then {@linkplain TcpProxy#stopDroppingRequests() stopped cleanly}. */
    static void dropRequests(TcpProxy proxy, Duration length) {
        proxy.dropRequests(true);
        try {
            hold(length);
        } finally {
            proxy.stopDroppingRequests();
        }
    }

    private void pause(String mode, Duration length) {
        admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(length.toMillis()).add(mode));
    }

    @Override
    public void close() {
        serverPid().ifPresent(pid -> Signals.sendQuietly("CONT", pid));
        try {
            admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
        } catch (RuntimeException ignored) {
            // best effort: a pause ends by itself
        }
        store.close();
        witness.close();
        admin.close();
        adminClient.shutdown();
        proxy.close();
        witnessProxy.close();
        closeOwned();
    }

    private void closeOwned() {
        if (owned != null) {
            owned.close();
        }
    }
}
