SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000;
