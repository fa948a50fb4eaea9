import t from 'tap';
import { randomSalt, shaCrypt } from '../src/host/sha-crypt.js';

// Expectations from crypt(3) (glibc, through Python's crypt and `openssl passwd`), not from this code.
t.test('SHA-crypt equals crypt(3)', async (t) => {
  t.equal(shaCrypt('secret', 'abcdefgh'), '$6$abcdefgh$ltjgWl6579NluT/Vi1nwEvcil.G5Nbc4NiXZaNGStk8PSwGfQv72N2CKPPrVACtLtip/cZ/1GM/O6IND4WQhG.');
  t.equal(shaCrypt('Hello world!', 'saltstring', 'sha256'), '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5');
  t.equal(
    shaCrypt('Hello world!', 'rounds=10000$saltstringsaltstring'),
    '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
  );
  t.equal(shaCrypt('', 'xy'), '$6$xy$FURHvm45vkjODyqlqPBCECA4EZWcG81VzyRU5kPWYSVpBj004aWdW96j1P9eIlvKGHgbAn2QoTyNNJjS.LR.V0');
  // a password longer than one digest exercises the block loop
  t.equal(
    shaCrypt('a'.repeat(100), 'longpasswordsalt'),
    '$6$longpasswordsalt$cz4CGTkztfb78k7McIaBsMO28dzV.m7J41QrvVWiwGD72AXWKIA1r88tQig10ekUHOAj3R7DWjsV1T4iM4STm0',
  );
});

t.test('random salts are 16 characters of the crypt alphabet', async (t) => {
  const s = randomSalt();
  t.match(s, /^[./0-9A-Za-z]{16}$/);
  t.not(s, randomSalt());
});
