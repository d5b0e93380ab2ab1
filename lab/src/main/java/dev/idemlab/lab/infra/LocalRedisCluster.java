package dev.idemlab.lab.infra;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A private Redis Cluster on 127.0.0.1: three masters and three replicas, each a {@code redis-server}
 * of the lab's own (the binary on PATH, else the bundled one) on an ephemeral port, without
 * persistence, recorded with the {@link ServerRegistry} like every private server. The lab forms it
 * itself with CLUSTER MEET, ADDSLOTS and REPLICATE and waits for {@code cluster_state:ok}; closing it
 * stops every node, also one a fault left frozen.
 *
 * <p>It also plays the faults of the failover experiment on its own nodes: freeze a replica
 * (SIGSTOP), crash a master (SIGKILL), promote the replica (CLUSTER FAILOVER TAKEOVER), and put a
 * fresh node in the crashed one's place, so the cluster is three plus three again for the next run;
 * and the changes of a healthy cluster: a planned failover, and a slot moved from one master to
 * another ({@link SlotMigration}).
 *
 * <p>Thread-safe for reads; faults are meant to be played by one thread at a time.
 */
public final class LocalRedisCluster implements AutoCloseable {

    /** One node, as the failover experiment names it. */
    public record Node(String id, int port, long pid) {
        public String address() {
            return "127.0.0.1:" + port;
        }
    }

    static final int MASTERS = 3;
    private static final int SLOTS = 16384;
    /** Short, so that a crashed node is flagged failed quickly; the lab's own failover does not wait for it. */
    private static final List<String> NODE_ARGS = List.of("--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000");
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** How long a takeover is waited for before it is asked for again. */
    private static final Duration TAKEOVER_REPEAT = Duration.ofSeconds(5);

    private final Map<String, RedisProcess> processes = new ConcurrentHashMap<>();
    private final ClusterAdmin admin = new ClusterAdmin();
    private boolean closed;

    private LocalRedisCluster() { }

    /**
     * Starts six nodes, forms the cluster and waits until it serves every slot with each replica in sync.
     *
     * @throws ProvisioningException if a node does not start or the cluster does not form, after stopping
     *     every node it started
     */
    public static LocalRedisCluster start() {
        LocalRedisCluster cluster = new LocalRedisCluster();
        try {
            List<RedisProcess> masters = new ArrayList<>();
            List<RedisProcess> replicas = new ArrayList<>();
            for (int i = 0; i < 2 * MASTERS; i++) {
                (i < MASTERS ? masters : replicas).add(cluster.startNode());
            }
            cluster.form(masters, replicas);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e instanceof ProvisioningException p ? p
                    : new ProvisioningException("cannot form the local Redis Cluster: " + e.getMessage(), e);
        }
    }

    /** The seed list a store connects with: {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String seedUri() {
        return "redis-cluster://" + processes.values().stream().map(RedisProcess::address).sorted()
                .collect(Collectors.joining(","));
    }

    /** The nodes running now, masters and replicas. */
    public List<Node> nodes() {
        return processes.entrySet().stream().map(e -> new Node(e.getKey(), e.getValue().port(), e.getValue().processId()))
                .sorted(java.util.Comparator.comparingInt(Node::port)).toList();
    }

    /** Every node's address, comma-separated, for outputs. */
    public String addresses() {
        return processes.values().stream().map(RedisProcess::address).sorted().collect(Collectors.joining(","));
    }

    /** Where the nodes' binary came from: system or bundled. */
    public Origin binaryOrigin() {
        return processes.values().stream().findFirst().map(RedisProcess::origin).orElse(Origin.BUNDLED);
    }

    /** The master that serves {@code key}'s hash slot now. */
    public Node masterOf(String key) {
        int slot = SlotHash.getSlot(key);
        RedisClusterNode master = view().getMasterBySlot(slot);
        if (master == null) {
            throw new ProvisioningException("no master serves slot " + slot + " of the local cluster", null);
        }
        return node(master);
    }

    /** The masters running now, each serving some slots. */
    public List<Node> masters() {
        return view().stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.getSlots().isEmpty()
                && processes.containsKey(n.getNodeId())).map(this::node)
                .sorted(java.util.Comparator.comparingInt(Node::port)).toList();
    }

    /**
     * Starts moving {@code slot} from the master {@code from} to the master {@code to}, to be played key
     * by key and then finished: see {@link SlotMigration}. The nemesis's resharding, and the split
     * moments a test wants to stand in.
     */
    public SlotMigration beginMigration(int slot, Node from, Node to) {
        return SlotMigration.begin(admin, this::nodes, slot, from, to);
    }

    /** Moves {@code slot} with all its keys from {@code from} to {@code to}, and waits until every node agrees. */
    public void migrateSlot(int slot, Node from, Node to) {
        SlotMigration migration = beginMigration(slot, from, to);
        migration.moveRemaining();
        migration.finish();
    }

    /** A replica of {@code master}. */
    public Node replicaOf(Node master) {
        // The master's own view: it knows its replicas first, before gossip tells the others.
        return admin.view(master.port()).stream()
                .filter(n -> master.id().equals(n.getSlaveOf()) && processes.containsKey(n.getNodeId()))
                .findFirst().map(this::node).orElseThrow(() ->
                        new ProvisioningException("master " + master.address() + " has no replica", null));
    }

    /**
     * Writes {@code bytes} of filler under {@code sameSlotKey} on {@code master}, so that its replica,
     * once frozen, lags by more than the sockets between them can hold: what is written next stays in
     * the master's own output buffer, and dies with it.
     */
    public void lagReplicaOf(Node master, String sameSlotKey, int bytes) {
        admin.node(master.port()).set(sameSlotKey, "x".repeat(bytes));
    }

    /** SIGSTOP: the node stops reading and answering, its sockets stay open. */
    public void freeze(Node node) {
        signal(node, "STOP");
    }

    /** SIGCONT after {@link #freeze(Node)}. */
    public void thaw(Node node) {
        signal(node, "CONT");
    }

    /** SIGKILL: the node dies without a word; what it had not sent to its replica is lost. */
    public void crash(Node node) {
        RedisProcess process = require(node);
        admin.drop(node.port());
        process.crash();
        processes.remove(node.id());
    }

    /**
     * CLUSTER FAILOVER TAKEOVER on {@code replica}: it becomes master of its master's slots with what it
     * has, without asking anyone; then waits until every live node sees it so and the cluster is ok.
     */
    public void takeOver(Node replica) {
        // A CI run on a busy machine once waited the whole patience in vain after the takeover of a
        // replica just thawed from SIGSTOP. The request is repeated every few seconds (a replica that is
        // master already refuses it) until every node sees the replica serve the slots.
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                admin.node(replica.port()).clusterFailover(false, true);
            } catch (RuntimeException alreadyMaster) {
                // "CLUSTER FAILOVER to a replica" only: an earlier request took the slots meanwhile
            }
            Duration left = Duration.ofNanos(deadline - System.nanoTime());
            if (left.compareTo(TAKEOVER_REPEAT) <= 0) {
                awaitServing(replica, left.isNegative() ? Duration.ZERO : left);
                return;
            }
            try {
                awaitServing(replica, TAKEOVER_REPEAT);
                return;
            } catch (ProvisioningException notYet) {
                // ask again
            }
        }
    }

    /**
     * CLUSTER FAILOVER on {@code replica}, the planned kind: its master stops taking writes, the replica
     * catches up with it and takes its slots over, and the old master becomes its replica, so nothing
     * written is lost. Waits until every live node sees the replica as master and the cluster is ok.
     */
    public void failOver(Node replica) {
        admin.node(replica.port()).clusterFailover(false);
        awaitServing(replica);
    }

    private void awaitServing(Node replica) {
        awaitServing(replica, PATIENCE);
    }

    private void awaitServing(Node replica, Duration patience) {
        ClusterAdmin.await("the replica " + replica.address() + " serves its master's slots", patience, () ->
                processes.values().stream().allMatch(p -> {
                    RedisClusterNode seen = admin.view(p.port()).getPartitionByNodeId(replica.id());
                    return seen != null && seen.is(RedisClusterNode.NodeFlag.UPSTREAM) && !seen.getSlots().isEmpty()
                            && admin.field(p.port(), "cluster_state").equals("ok");
                }));
    }

    /**
     * Starts a fresh node in place of {@code crashed}, as a replica of {@code master}, makes every node
     * forget the crashed one, and waits until the new replica is in sync.
     */
    public Node replace(Node crashed, Node master) {
        RedisProcess fresh = startNode();
        String id = admin.node(fresh.port()).clusterMyId();
        admin.node(master.port()).clusterMeet("127.0.0.1", fresh.port());
        ClusterAdmin.await("the new node knows " + master.address(), PATIENCE, () -> {
            RedisClusterNode seen = admin.view(fresh.port()).getPartitionByNodeId(master.id());
            return seen != null && !seen.is(RedisClusterNode.NodeFlag.HANDSHAKE);
        });
        admin.node(fresh.port()).clusterReplicate(master.id());
        for (RedisProcess live : processes.values()) {
            try {
                admin.node(live.port()).clusterForget(crashed.id());
            } catch (RuntimeException notKnown) {
                // A node that never heard of it (the new one), or one that forgot it already.
            }
        }
        awaitReplicaInSync(fresh);
        awaitClusterOk();
        ClusterAdmin.await("every node sees " + fresh.address() + " as a replica of " + master.address(), PATIENCE,
                () -> processes.values().stream().allMatch(p -> {
                    RedisClusterNode seen = admin.view(p.port()).getPartitionByNodeId(id);
                    return seen != null && master.id().equals(seen.getSlaveOf())
                            && admin.view(p.port()).getPartitionByNodeId(crashed.id()) == null;
                }));
        return new Node(id, fresh.port(), fresh.processId());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (RedisProcess process : processes.values()) {
            process.signal("CONT"); // a frozen node would ignore the SIGTERM that stops it cleanly
        }
        admin.close();
        processes.values().forEach(RedisProcess::close);
        processes.clear();
    }

    private RedisProcess startNode() {
        RedisProcess process = RedisProvisioner.startClusterNode(NODE_ARGS);
        String id;
        try {
            id = admin.node(process.port()).clusterMyId();
        } catch (RuntimeException e) {
            process.close();
            throw new ProvisioningException("a cluster node on " + process.address() + " does not answer: "
                    + e.getMessage(), e);
        }
        processes.put(id, process);
        return process;
    }

    private void form(List<RedisProcess> masters, List<RedisProcess> replicas) {
        RedisProcess first = masters.get(0);
        for (RedisProcess other : processes.values()) {
            if (other != first) {
                admin.node(first.port()).clusterMeet("127.0.0.1", other.port());
            }
        }
        ClusterAdmin.await("every node knows every other", PATIENCE, () -> processes.values().stream().allMatch(p -> {
            Partitions view = admin.view(p.port());
            return view.size() == processes.size()
                    && view.stream().noneMatch(n -> n.is(RedisClusterNode.NodeFlag.HANDSHAKE));
        }));
        for (int i = 0; i < masters.size(); i++) {
            int from = i * SLOTS / MASTERS;
            int to = (i + 1) * SLOTS / MASTERS;
            int[] slots = new int[to - from];
            for (int s = 0; s < slots.length; s++) {
                slots[s] = from + s;
            }
            admin.node(masters.get(i).port()).clusterAddSlots(slots);
        }
        for (int i = 0; i < replicas.size(); i++) {
            String masterId = idOf(masters.get(i));
            RedisProcess replica = replicas.get(i);
            ClusterAdmin.await("node " + replica.address() + " replicates " + masters.get(i).address(), PATIENCE,
                    () -> "OK".equals(admin.node(replica.port()).clusterReplicate(masterId)));
        }
        awaitClusterOk();
        // A replica's own view knows its master at once; gossip tells the other nodes later. Until it has,
        // a client that reads the topology from them takes the replica for a master without slots.
        ClusterAdmin.await("every node sees every replica as one", PATIENCE, () -> processes.values().stream()
                .allMatch(p -> {
                    Partitions view = admin.view(p.port());
                    for (int i = 0; i < replicas.size(); i++) {
                        RedisClusterNode seen = view.getPartitionByNodeId(idOf(replicas.get(i)));
                        if (seen == null || !idOf(masters.get(i)).equals(seen.getSlaveOf())) {
                            return false;
                        }
                    }
                    return true;
                }));
        for (RedisProcess replica : replicas) {
            awaitReplicaInSync(replica);
        }
    }

    private void awaitClusterOk() {
        ClusterAdmin.await("cluster_state:ok on every node", PATIENCE, () -> processes.values().stream()
                .allMatch(p -> admin.field(p.port(), "cluster_state").equals("ok")
                        && admin.view(p.port()).stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM))
                        .mapToInt(n -> n.getSlots().size()).sum() == SLOTS));
    }

    private void awaitReplicaInSync(RedisProcess replica) {
        ClusterAdmin.await("replica " + replica.address() + " in sync", PATIENCE, () ->
                admin.field(replica.port(), "master_link_status").equals("up")
                        && admin.field(replica.port(), "master_sync_in_progress").equals("0"));
    }

    private Partitions view() {
        for (RedisProcess live : processes.values()) {
            try {
                return admin.view(live.port());
            } catch (RuntimeException tryAnother) {
                // a frozen node times out: ask the next
            }
        }
        throw new ProvisioningException("no node of the local cluster answers", null);
    }

    private Node node(RedisClusterNode seen) {
        RedisProcess process = processes.get(seen.getNodeId());
        if (process == null) {
            throw new ProvisioningException("node " + seen.getNodeId() + " is not one the lab runs", null);
        }
        return new Node(seen.getNodeId(), process.port(), process.processId());
    }

    private String idOf(RedisProcess process) {
        return processes.entrySet().stream().filter(e -> e.getValue() == process).map(Map.Entry::getKey)
                .findFirst().orElseThrow();
    }

    private RedisProcess require(Node node) {
        return Optional.ofNullable(processes.get(node.id())).orElseThrow(() ->
                new ProvisioningException("node " + node.address() + " is not running", null));
    }

    private void signal(Node node, String signal) {
        if (!require(node).signal(signal)) {
            throw new ProvisioningException("could not send SIG" + signal + " to the node at " + node.address()
                    + " (pid " + node.pid() + ")", null);
        }
    }
}
