package dev.metaforge.neo4jlauncher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

/**
 * Test-only Neo4j 5 server: an embedded Neo4j (neo4j-harness, community
 * edition) with Bolt on 127.0.0.1 and authentication disabled (any
 * credentials are accepted).
 *
 * <pre>
 * java -jar neo4j-launcher.jar DATA_DIR [BOLT_PORT] [--http-port N] [--exit-on-stdin-eof] [--warmup-and-exit]
 * </pre>
 *
 * DATA_DIR: the store goes into a fresh random sub-folder of it, deleted on
 * a clean stop. BOLT_PORT: default $NEO4J_BOLT_PORT, else 7687; 0 picks a free
 * port (the READY line tells which).
 * --http-port (or $NEO4J_HTTP_PORT): HTTP on 127.0.0.1:N; off by default.
 * --exit-on-stdin-eof: also stop when standard input closes (for a parent
 * process that holds a pipe to it); without it only SIGTERM/SIGINT stop it.
 * --warmup-and-exit: once ready, run a small Cypher workload and stop; used
 * with -XX:ArchiveClassesAtExit to record a class-data-sharing archive,
 * which cuts later start-ups several-fold.
 *
 * Once Bolt answers a handshake it prints one line to stdout:
 * {@code READY bolt://127.0.0.1:PORT}. Everything else goes to stderr or to
 * Neo4j's own logs under the store folder.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = null;
        Integer boltPort = null;
        Integer httpPort = envInt("NEO4J_HTTP_PORT");
        boolean exitOnStdinEof = false;
        boolean warmupAndExit = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--http-port" -> httpPort = Integer.parseInt(args[++i]);
                case "--exit-on-stdin-eof" -> exitOnStdinEof = true;
                case "--warmup-and-exit" -> warmupAndExit = true;
                case "-h", "--help" -> {
                    usage();
                    return;
                }
                default -> {
                    if (a.startsWith("--")) {
                        usage();
                        System.exit(2);
                    } else if (dataDir == null) {
                        dataDir = Path.of(a);
                    } else if (boltPort == null) {
                        boltPort = Integer.parseInt(a);
                    } else {
                        usage();
                        System.exit(2);
                    }
                }
            }
        }
        if (dataDir == null) {
            String env = System.getenv("NEO4J_DATA_DIR");
            if (env == null || env.isEmpty()) {
                usage();
                System.exit(2);
            }
            dataDir = Path.of(env);
        }
        if (boltPort == null) {
            Integer env = envInt("NEO4J_BOLT_PORT");
            boltPort = env != null ? env : 7687;
        }
        Files.createDirectories(dataDir);
        dataDir = dataDir.toAbsolutePath();

        long t0 = System.nanoTime();
        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(dataDir)
                .withConfig(GraphDatabaseSettings.auth_enabled, false)
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", boltPort))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", boltPort))
                .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .withConfig(HttpsConnector.enabled, false)
                // Small and fast: tests share 2 cores with this server.
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(32))
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.preallocate_store_files, false)
                .withConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .withConfig(BoltConnector.thread_pool_max_size, 64)
                // No usage-data reports: this machine reaches no such host.
                .withConfig(GraphDatabaseInternalSettings.udc_network_enabled, false);
        if (httpPort != null && httpPort > 0) {
            builder = builder.withConfig(HttpConnector.enabled, true)
                    .withConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", httpPort))
                    .withConfig(HttpConnector.advertised_address, new SocketAddress("127.0.0.1", httpPort));
        } else {
            builder = builder.withDisabledServer();
        }

        err("starting Neo4j (harness) with Bolt on 127.0.0.1:" + boltPort + ", store under " + dataDir);
        final Neo4j neo4j;
        try {
            neo4j = builder.build();
        } catch (RuntimeException e) {
            // Neo4j's own threads could otherwise keep a half-started JVM alive.
            err("failed to start: " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                err("  caused by: " + c);
            }
            err("Neo4j's logs are under " + dataDir);
            System.exit(1);
            return;
        }
        int port = neo4j.boltURI().getPort();
        String boltUri = "bolt://127.0.0.1:" + port;

        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            err("stopping Neo4j");
            try {
                neo4j.close();
            } catch (RuntimeException e) {
                err("error while stopping: " + e);
            }
            stopped.countDown();
        }, "neo4j-launcher-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        // Warm the Cypher runtime a little, then prove Bolt itself answers.
        neo4j.defaultDatabaseService().executeTransactionally("RETURN 1");
        int version = boltHandshake(port);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        err("Bolt answered handshake (server chose " + (version & 0xff) + "." + ((version >> 8) & 0xff)
                + ") after " + ms + " ms");
        System.out.println("READY " + boltUri);
        System.out.flush();

        if (warmupAndExit) {
            warmup(neo4j);
            System.exit(0);
        }
        if (exitOnStdinEof) {
            Thread t = new Thread(() -> {
                try {
                    InputStream in = System.in;
                    byte[] buf = new byte[256];
                    while (in.read(buf) >= 0) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // treat as EOF
                }
                err("stdin closed");
                System.exit(0);
            }, "neo4j-launcher-stdin");
            t.setDaemon(true);
            t.start();
        }
        stopped.await();
    }

    /** A few statements of the kinds the tests run, so their classes get loaded (and archived). */
    private static void warmup(Neo4j neo4j) {
        var db = neo4j.defaultDatabaseService();
        db.executeTransactionally(
                "CREATE CONSTRAINT warmup_id IF NOT EXISTS FOR (n:Warmup) REQUIRE n.id IS UNIQUE");
        db.executeTransactionally("CREATE INDEX warmup_name IF NOT EXISTS FOR (n:Warmup) ON (n.name)");
        for (int i = 0; i < 20; i++) {
            db.executeTransactionally(
                    "MERGE (a:Warmup {id: $id}) SET a.name = $name, a.tags = ['x', 'y'] "
                            + "MERGE (b:Warmup {id: $id + 1000}) MERGE (a)-[r:LINKS {w: 1.5}]->(b) RETURN a, r, b",
                    java.util.Map.of("id", i, "name", "n" + i));
        }
        db.executeTransactionally(
                "MATCH (a:Warmup)-[r]->(b) WHERE a.id < $max RETURN a.id, type(r), b {.*} ORDER BY a.id LIMIT 5",
                java.util.Map.of("max", 10));
        db.executeTransactionally("MATCH p = (a:Warmup)-[*1..2]-(b) RETURN count(p)");
        db.executeTransactionally("EXPLAIN MATCH (n) RETURN n");
        db.executeTransactionally("EXPLAIN CREATE (n)");
        db.executeTransactionally("SHOW CONSTRAINTS");
        db.executeTransactionally("SHOW INDEXES");
        db.executeTransactionally("MATCH (n:Warmup) DETACH DELETE n");
        db.executeTransactionally("DROP INDEX warmup_name IF EXISTS");
        db.executeTransactionally("DROP CONSTRAINT warmup_id IF EXISTS");
        err("warm-up workload done");
    }

    /** Performs a Bolt handshake offering 5.x and 4.4; returns the chosen version word. */
    static int boltHandshake(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(new byte[] {
                (byte) 0x60, (byte) 0x60, (byte) 0xB0, (byte) 0x17,
                0, 8, 8, 5, // 5.8 down to 5.0
                0, 0, 4, 4, // 4.4
                0, 0, 0, 0,
                0, 0, 0, 0,
            });
            out.flush();
            byte[] resp = s.getInputStream().readNBytes(4);
            if (resp.length != 4) {
                throw new IOException("Bolt handshake: short answer");
            }
            int v = ((resp[3] & 0xff)) | ((resp[2] & 0xff) << 8);
            if (v == 0) {
                throw new IOException("Bolt handshake: no common protocol version");
            }
            return v;
        }
    }

    private static Integer envInt(String name) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? null : Integer.valueOf(v);
    }

    private static void err(String msg) {
        System.err.println("neo4j-launcher: " + msg);
        System.err.flush();
    }

    private static void usage() {
        System.err.println("usage: java -jar neo4j-launcher.jar DATA_DIR [BOLT_PORT] [--http-port N]"
                + " [--exit-on-stdin-eof] [--warmup-and-exit]");
        System.err.println("  env: NEO4J_DATA_DIR, NEO4J_BOLT_PORT (default 7687), NEO4J_HTTP_PORT (default: HTTP off)");
    }
}
