#!yaml|gpg
app:
  password: |
    -----BEGIN PGP MESSAGE-----
    
    hQEMA6bMTW4b89kQAQf+MEeJhN8bzTa97UGaPTWxeq8ovuFw4mDzPi3sOqXX1E1/
    JwGfou3wDXtsfIhARN1BUjWslo09V6/MZqEl/TO3jTm0R46Q3DgCPnsBQlfU0nhD
    e/1Umt+uuU3c6jkA5obqen6OVM60Pb0dDkplLXPdTlOXQMgVTtg9vvMYsWTL82Dj
    UsbDPSOlfWNlYTAUe4O7P91P4h/QzLofBmXZyoZpl9bUnIRTUhizoKeajlZ3Q88L
    ANfowdDHSRytyYuUahKR/8ROreox8uPprIPfcls2OjKxQ1TAowz4RTIdYIjHE+0F
    4F1ahsPjcnSELCBWm33DgNDDdC8/pclORvnByfGEINJKAdfyjPtmfbN4QlFr7xi8
    AabtasGuUhVXPB6HpgXprgBm7PSLeIjBEKaDx/P3OCMpXRrDp9bFdFLsAGLZQeSs
    OIO3j4EblLyWICo=
    =lwr+
    -----END PGP MESSAGE-----
  user: app
