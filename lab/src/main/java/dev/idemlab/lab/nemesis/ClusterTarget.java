package dev.idemlab.lab.nemesis;

import dev.idemlab.idempotency.spi.IdempotencyStore;
import dev.idemlab.lab.faults.FaultKind;
import dev.idemlab.lab.infra.LocalRedisCluster;
import dev.idemlab.lab.infra.LocalRedisCluster.Node;
import dev.idemlab.lab.infra.RedisClusterBackend;
import dev.idemlab.lab.infra.SlotMigration;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The lab's own Redis Cluster under the nemesis: slots move between masters while keys of the
 * workload live in them (resharding), a replica takes over its master (a planned failover), a master
 * pauses ({@code CLIENT PAUSE}), every node drops the store's connections. The store connects to the
 * nodes directly (the cluster client follows them; a proxy per node would hide the topology). Which
 * master and which slot is drawn from the run's seed; a slot is preferably one where a reservation is
 * pending now, found by {@code RANDOMKEY} on the master.
 */
final class ClusterTarget extends NemesisTarget {

    private static final int PENDING_SEARCH = 20;

    private final LocalRedisCluster cluster;
    private final IdempotencyStore store;
    private final SplittableRandom random;
    private final Map<Integer, RedisClient> clients = new HashMap<>();
    private final Map<Integer, StatefulRedisConnection<String, String>> connections = new HashMap<>();

    ClusterTarget(RedisClusterBackend backend, long seed) {
        super(backend.server());
        this.cluster = backend.localCluster().orElseThrow(() -> new IllegalArgumentException(
                "the nemesis plays its faults on the lab's own cluster only, never on a cluster given by URL"));
        this.store = backend.openStore();
        this.random = new SplittableRandom(seed ^ 0x636c7573746572L);
    }

    @Override
    IdempotencyStore store() {
        return store;
    }

    @Override
    List<FaultKind> kinds() {
        return List.of(FaultKind.MIGRATE_SLOT, FaultKind.FAILOVER, FaultKind.PAUSE_ALL, FaultKind.KILL_CONNECTIONS);
    }

    @Override
    void inject(FaultKind kind, Duration length) {
        switch (kind) {
            case MIGRATE_SLOT -> migrate(length);
            case FAILOVER -> {
                Node master = pick(cluster.masters());
                cluster.failOver(cluster.replicaOf(master));
            }
            case PAUSE_ALL -> {
                node(pick(cluster.masters())).dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(length.toMillis()).add("ALL"));
                hold(length);
            }
            case KILL_CONNECTIONS -> {
                for (Node each : cluster.nodes()) {
                    RedisCommands<String, String> commands = node(each);
                    commands.clientKill(KillArgs.Builder.typeNormal().skipme());
                    commands.clientKill(KillArgs.Builder.typePubsub().skipme());
                }
            }
            default -> throw new IllegalArgumentException(kind.id() + " is not a fault of the redis-cluster store");
        }
    }

    /** Moves a slot from one master to another, half the length open before its keys move, half after. */
    private void migrate(Duration length) {
        List<Node> masters = cluster.masters();
        Node from = pick(masters);
        Node to = pick(masters.stream().filter(each -> !each.equals(from)).toList());
        SlotMigration migration = cluster.beginMigration(slotOnMaster(from), from, to);
        try {
            hold(length.dividedBy(2));
            migration.moveRemaining();
            hold(length.dividedBy(2));
        } finally {
            migration.finish();
        }
    }

    /** A slot of {@code master}'s, one holding a pending reservation if a few random keys find one. */
    private int slotOnMaster(Node master) {
        RedisCommands<String, String> commands = node(master);
        String any = null;
        for (int i = 0; i < PENDING_SEARCH; i++) {
            String key = commands.randomkey();
            if (key == null) {
                break;
            }
            any = any == null ? key : any;
            String value = commands.get(key);
            if (value != null && value.startsWith("3|p|")) {
                return SlotHash.getSlot(key);
            }
        }
        return any != null ? SlotHash.getSlot(any) : SlotHash.getSlot("nemesis-" + random.nextInt());
    }

    private synchronized <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    private RedisCommands<String, String> node(Node node) {
        return connections.computeIfAbsent(node.port(), port -> {
            RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
            clients.put(port, client);
            return client.connect();
        }).sync();
    }

    @Override
    public void close() {
        for (Node each : cluster.nodes()) {
            try {
                node(each).dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
            } catch (RuntimeException gone) {
                // best effort: a pause ends by itself
            }
        }
        store.close();
        connections.values().forEach(StatefulRedisConnection::close);
        clients.values().forEach(RedisClient::shutdown);
    }
}
