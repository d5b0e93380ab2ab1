package dev.idemlab.lab.infra;

import dev.idemlab.lab.infra.LocalRedisCluster.Node;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * One hash slot of the local cluster on its way from one master to another, moved the way
 * {@code redis-cli --cluster reshard} moves it, one step at a time so that a test can act between
 * the steps: the target is set IMPORTING and the source MIGRATING, keys are moved by MIGRATE, and
 * {@link #finish()} gives the slot to the target (SETSLOT NODE on the target, the source, then every
 * other master) and waits until every node agrees.
 *
 * <p>While it is open, the source answers a command on keys it no longer holds with ASK, and the
 * target answers a command on several keys of which it holds only some with TRYAGAIN: the moments of
 * a resharding that a client must ride out.
 *
 * <p>Not thread-safe: one thread plays a migration.
 */
public final class SlotMigration {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final long MIGRATE_TIMEOUT_MS = 5_000;
    private static final int KEYS_PER_BATCH = 100;

    private final ClusterAdmin admin;
    private final Supplier<List<Node>> nodes;
    private final int slot;
    private final Node from;
    private final Node to;
    private boolean finished;

    private SlotMigration(ClusterAdmin admin, Supplier<List<Node>> nodes, int slot, Node from, Node to) {
        this.admin = admin;
        this.nodes = nodes;
        this.slot = slot;
        this.from = from;
        this.to = to;
    }

    /** Opens the migration: IMPORTING on {@code to} first, then MIGRATING on {@code from}, as Redis asks. */
    static SlotMigration begin(ClusterAdmin admin, Supplier<List<Node>> nodes, int slot, Node from, Node to) {
        if (from.id().equals(to.id())) {
            throw new IllegalArgumentException("slot " + slot + " cannot migrate from " + from.address() + " to itself");
        }
        admin.node(to.port()).clusterSetSlotImporting(slot, from.id());
        admin.node(from.port()).clusterSetSlotMigrating(slot, to.id());
        return new SlotMigration(admin, nodes, slot, from, to);
    }

    /** The slot that moves. */
    public int slot() {
        return slot;
    }

    /** The master it leaves. */
    public Node from() {
        return from;
    }

    /** The master it goes to. */
    public Node to() {
        return to;
    }

    /**
     * Moves one key of the slot to the target (MIGRATE); a key the source does not hold is left alone.
     *
     * @return whether the source held it and it moved
     */
    public boolean moveKey(String key) {
        String reply = admin.node(from.port()).migrate("127.0.0.1", to.port(), 0, MIGRATE_TIMEOUT_MS,
                MigrateArgs.Builder.key(key));
        return "OK".equals(reply);
    }

    /**
     * Moves every key the source still holds in the slot.
     *
     * @return how many moved
     */
    public int moveRemaining() {
        int moved = 0;
        while (true) {
            List<String> batch = admin.node(from.port()).clusterGetKeysInSlot(slot, KEYS_PER_BATCH);
            if (batch.isEmpty()) {
                return moved;
            }
            admin.node(from.port()).migrate("127.0.0.1", to.port(), 0, MIGRATE_TIMEOUT_MS,
                    MigrateArgs.Builder.keys(batch));
            moved += batch.size();
        }
    }

    /**
     * Gives the slot to the target, whatever keys are left on the source (call {@link #moveRemaining()}
     * first to keep them), and waits until every live node says the target serves it.
     */
    public void finish() {
        if (finished) {
            return;
        }
        finished = true;
        admin.node(to.port()).clusterSetSlotNode(slot, to.id());
        admin.node(from.port()).clusterSetSlotNode(slot, to.id());
        for (Node node : nodes.get()) {
            if (!node.id().equals(to.id()) && !node.id().equals(from.id()) && isMaster(node)) {
                admin.node(node.port()).clusterSetSlotNode(slot, to.id());
            }
        }
        ClusterAdmin.await("slot " + slot + " served by " + to.address() + " on every node", PATIENCE, () ->
                nodes.get().stream().allMatch(node -> {
                    RedisClusterNode owner = admin.view(node.port()).getMasterBySlot(slot);
                    return owner != null && owner.getNodeId().equals(to.id());
                }));
    }

    private boolean isMaster(Node node) {
        RedisClusterNode seen = admin.view(node.port()).getPartitionByNodeId(node.id());
        return seen != null && seen.is(RedisClusterNode.NodeFlag.UPSTREAM);
    }
}
