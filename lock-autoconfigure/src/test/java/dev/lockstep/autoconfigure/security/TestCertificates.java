package dev.lockstep.autoconfigure.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private CA and a server certificate it signed for 127.0.0.1 and localhost, made at test time
 * with the JDK's keytool (nothing committed, no openssl needed), written as the PEM files
 * redis-server reads.
 * @param caCertificate the CA's certificate, PEM
 * @param serverCertificate the server's certificate, PEM
 * @param serverKey the server's private key, PKCS#8 PEM
 */
record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {

	private static final String PASSWORD = "changeit";

	static TestCertificates create(Path dir) throws Exception {
		Path ca = dir.resolve("ca.p12");
		Path server = dir.resolve("server.p12");
		keytool(null, "-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
				"-dname", "CN=Lockstep test CA", "-ext", "bc:c", "-keystore", ca.toString(), "-storetype", "PKCS12",
				"-storepass", PASSWORD);
		keytool(null, "-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
				"-dname", "CN=localhost", "-keystore", server.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
		byte[] request = keytool(null, "-certreq", "-alias", "server", "-keystore", server.toString(), "-storepass",
				PASSWORD);
		byte[] signed = keytool(request, "-gencert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD,
				"-validity", "2", "-ext", "san=ip:127.0.0.1,dns:localhost", "-ext", "eku=serverAuth", "-rfc");
		TestCertificates certificates = new TestCertificates(dir.resolve("ca.crt"), dir.resolve("server.crt"),
				dir.resolve("server.key"));
		Files.write(certificates.serverCertificate(), signed);
		Files.writeString(certificates.caCertificate(),
				pem("CERTIFICATE", load(ca).getCertificate("ca").getEncoded()));
		PrivateKey key = (PrivateKey) load(server).getKey("server", PASSWORD.toCharArray());
		Files.writeString(certificates.serverKey(), pem("PRIVATE KEY", key.getEncoded()));
		return certificates;
	}

	private static KeyStore load(Path file) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(file)) {
			store.load(in, PASSWORD.toCharArray());
		}
		return store;
	}

	private static String pem(String type, byte[] der) {
		return "-----BEGIN " + type + "-----\n"
				+ Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
				+ "\n-----END " + type + "-----\n";
	}

	private static byte[] keytool(byte[] input, String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.add("-noprompt");
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
		if (input != null) {
			process.getOutputStream().write(input);
		}
		process.getOutputStream().close();
		byte[] output = process.getInputStream().readAllBytes();
		String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + errors);
		}
		return output;
	}

}
