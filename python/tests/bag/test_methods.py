"""DataSlice methods that are Koda operators with the slice first
(`ds.flatten()` is `kd.flatten(ds)`, ...), checked on entities."""

from plait import kd


def test_methods_delegate_to_the_operators():
    e = kd.new(x=kd.slice([1, 2, 3]))
    two = kd.stack(e, e)
    assert two.flatten().x.to_py() == [1, 1, 2, 2, 3, 3]
    assert two.flatten_end().x.to_py() == [1, 1, 2, 2, 3, 3]
    assert e.reshape(kd.shapes.new(3)).x.to_py() == [1, 2, 3]
    assert e.select(e.x > 1).x.to_py() == [2, 3]
    assert (e & (e.x > 1)).select_present().x.to_py() == [2, 3]
    assert e.take(kd.slice([2, 0])).x.to_py() == [3, 1]
    assert kd.new(y=1).expand_to(e).y.to_py() == [1, 1, 1]
    assert str(e.is_entity()) == "present" and str(e.is_primitive()) == "missing"
    assert str(e.has_bag()) == "present" and str(e.is_empty()) == "missing"
    assert e.extract().x.to_py() == [1, 2, 3]
    assert e.clone().x.to_py() == [1, 2, 3] and e.deep_clone().x.to_py() == [1, 2, 3]
    assert e.shallow_clone().x.to_py() == [1, 2, 3]
    assert str(e.stub().get_itemid()) == str(e.get_itemid())
    assert str(e.deep_uuid().get_schema()) == "ITEMID"
    lists = kd.implode(kd.slice([[1, 2], [3]]))
    assert str(lists.is_list()) == "present"
    assert lists.select_items(kd.slice([[None, kd.present], [kd.present]])).to_py() == [[2], [3]]
    assert lists.with_list_append_update(9).to_py() == [[1, 2, 9], [3, 9]]
    assert str(kd.INT32.is_primitive_schema()) == "present"
    assert kd.from_py([1, [2]]).to_pytree() == [1, [2]]
    assert kd.slice([1, 2]).repeat(2).to_py() == [[1, 1], [2, 2]]
